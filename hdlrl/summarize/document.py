"""A summary of one module as the search edits it: the module's text and one text per block."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Document:
    summary: str  # the module summary
    blocks: tuple[str, ...]  # one summary per top-level block of the module, in source order ("" until written)

    def with_block(self, index: int, text: str) -> "Document":
        return Document(self.summary, self.blocks[:index] + (text,) + self.blocks[index + 1:])

    def with_summary(self, text: str) -> "Document":
        return Document(text, self.blocks)

    @property
    def text(self) -> str:
        """Everything the document says, module summary first."""
        return " ".join(part for part in (self.summary, *self.blocks) if part)
