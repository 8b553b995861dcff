"""The documented deployment is not open (issue 43, item 3): the webserver listens on
127.0.0.1 only, and Debian's nginx, configured with the shipped site file, asks every request
for a password over TLS before it reaches the webserver's GraphQL API.

One real ``dagster-webserver`` (DEPLOY.md's command, on a free port), a password file and a
certificate made by DEPLOY.md's commands (``openssl`` answered on a pseudo-terminal, as an
administrator types), and nginx in front (``tests/e2e/nginx_proxy.py``).  The issue's attack,
an unauthenticated ``launchPipelineExecution`` (and any query), is refused with 401 and
launches nothing; with the password the API answers, its WebSocket included.
"""

from __future__ import annotations

import base64
import json
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.e2e.dagster_processes import (
    LAUNCH_PIPELINE_EXECUTION,
    LOCATION,
    REPOSITORIES,
    REPOSITORY,
    RUNS,
    Deployment,
    make_env,
    scratch_folder,
)
from tests.e2e.nginx_proxy import (
    USER,
    certificate_command,
    free_port,
    listening_addresses,
    nginx,
    password_command,
    run_on_a_terminal,
    site_config,
    webserver_command,
)

pytestmark = pytest.mark.slow  # the webserver loads the code location (30 s to 2 min)

PASSWORD = "correct horse battery staple"
NAME = "genstrat.test"  # the certificate's name, sent as SNI (the test connects to 127.0.0.1)


@dataclass(frozen=True)
class Proxied:
    url: str  # nginx's, https
    certificate: Path
    webserver: Deployment
    web_port: int

    def client(self) -> httpx.Client:
        return httpx.Client(verify=ssl.create_default_context(cafile=self.certificate))

    def post(
        self, query: str, auth: tuple[str, str] | None = None, **variables: object
    ) -> httpx.Response:
        with self.client() as client:
            return client.post(
                f"{self.url}/graphql",
                json={"query": query, "variables": variables},
                auth=auth,
                extensions={"sni_hostname": NAME},
                timeout=60,
            )


@pytest.fixture(scope="module")
def proxied() -> Iterator[Proxied]:
    with scratch_folder("genstrat-proxy-") as root:
        web_port, proxy_port = free_port(), free_port()
        webserver = Deployment(
            root=root, env=make_env(root, {}), url=f"http://127.0.0.1:{web_port}"
        )
        etc = root / "etc"
        etc.mkdir()
        htpasswd, certificate, key = (
            etc / "genstrat.htpasswd",
            etc / "genstrat.crt",
            etc / "genstrat.key",
        )
        run_on_a_terminal(password_command(str(htpasswd)), [PASSWORD, PASSWORD])
        run_on_a_terminal(certificate_command(NAME, str(certificate), str(key)), [])
        site = site_config(
            port=proxy_port,
            upstream_port=web_port,
            htpasswd=htpasswd,
            certificate=certificate,
            key=key,
        )
        try:
            webserver.start("webserver", webserver_command(web_port))
            webserver.wait_for_webserver()
            with nginx(root / "nginx", site, proxy_port):
                yield Proxied(f"https://127.0.0.1:{proxy_port}", certificate, webserver, web_port)
        finally:
            webserver.stop_all()


def test_the_password_file_holds_a_sha512_crypt_hash_of_the_typed_password(
    proxied: Proxied,
) -> None:
    text = (proxied.certificate.parent / "genstrat.htpasswd").read_text()
    user, hashed = text.strip().split(":", 1)
    assert user == USER
    assert hashed.startswith("$6$") and PASSWORD not in text


def test_the_webserver_listens_on_the_loopback_interface_only(proxied: Proxied) -> None:
    assert listening_addresses(proxied.web_port) == {"127.0.0.1"}


def test_without_the_password_the_api_refuses_and_launches_nothing(proxied: Proxied) -> None:
    params = {
        "mode": "default",
        "runConfigData": "{}",
        "selector": {
            "repositoryLocationName": LOCATION,
            "repositoryName": REPOSITORY,
            "pipelineName": "main_job",
            "assetSelection": [{"path": ["roster"]}],
        },
    }
    for auth in (None, (USER, "wrong password"), ("mallory", PASSWORD)):
        for query, variables in ((LAUNCH_PIPELINE_EXECUTION, {"p": params}), (REPOSITORIES, {})):
            reply = proxied.post(query, auth, **variables)
            assert reply.status_code == 401, (auth, reply.text[:300])
            assert reply.headers["www-authenticate"] == 'Basic realm="GENSTRAT"'
            assert "data" not in reply.text
    with proxied.client() as client:  # the UI's pages too
        page = client.get(f"{proxied.url}/", extensions={"sni_hostname": NAME})
    assert page.status_code == 401
    runs = proxied.webserver.graphql(RUNS, filter=None)["runsOrError"]["results"]
    assert runs == []


def test_with_the_password_the_api_answers(proxied: Proxied) -> None:
    reply = proxied.post(REPOSITORIES, (USER, PASSWORD))
    assert reply.status_code == 200, reply.text[:300]
    nodes = reply.json()["data"]["repositoriesOrError"]["nodes"]
    assert [n["location"]["name"] for n in nodes] == [LOCATION]


def test_the_uis_websocket_passes_with_the_password_only(proxied: Proxied) -> None:
    """The UI's live updates: a ``graphql-ws`` WebSocket on /graphql through the proxy."""
    context = ssl.create_default_context(cafile=proxied.certificate)
    url = proxied.url.replace("https://", "wss://") + "/graphql"
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    common = {"ssl": context, "server_hostname": NAME, "subprotocols": ["graphql-ws"]}
    with pytest.raises(InvalidStatus) as refused:
        connect(url, **common, open_timeout=30)  # type: ignore[arg-type]
    assert refused.value.response.status_code == 401
    with connect(
        url,
        **common,
        additional_headers={"Authorization": f"Basic {token}"},
        open_timeout=30,  # type: ignore[arg-type]
    ) as socket:
        socket.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert json.loads(socket.recv(timeout=30))["type"] == "connection_ack"
