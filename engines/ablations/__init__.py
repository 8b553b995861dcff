"""The paper's ablations (Section 8, Appendix I): programs written by models, disclosed and
hidden program opponents, the thinking budget, and the LLM judge of reasoning traces."""
