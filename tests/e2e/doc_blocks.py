"""The fenced code blocks of README.md and docs/, in the order a reader meets them, read by the
convention of docs/examples.md: ```` ```sh ```` and ```` ```python ```` blocks run; the words
after the language say how (``no-run``: shown, never run; ``refusal``: shows the service or a
command refusing; ``setup``: the environment every page's examples start from)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = frozenset({"sh", "python"})
NOT_RUN = frozenset({"", "json", "text", "sql", "console-output"})
"""Languages that are never run: data, output and other languages' samples ("": a fence with
no language, plain text)."""
MODES = frozenset({"no-run", "refusal", "setup"})
_OPENING = re.compile(r"^(?P<indent> *)```(?P<language>[^\s`]*)[ \t]*(?P<words>[^`]*)$")
_LINK = re.compile(r"\]\((docs/[^)#\s]+\.md)(?:#[^)]*)?\)")
SERVICE_ADDRESSES = ("127.0.0.1:8000", "localhost:8000")
"""The address the examples write: the test serves on a free port and reads them as it."""


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its mode words and its text."""

    page: Path
    line: int
    language: str
    words: frozenset[str]
    text: str

    @property
    def where(self) -> str:
        """``docs/receipts.md:14``."""
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def runs(self) -> bool:
        """Whether the test runs it (in its page's order; setup blocks first, once)."""
        return self.language in RUNNABLE and "no-run" not in self.words


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a Markdown page, in order; an unclosed fence is an error."""
    lines = page.read_text("utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent = len(opening["indent"])
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"{page}:{index + 1}: a fence that never closes")
        text = "\n".join(line[indent:] for line in lines[index + 1 : end]) + "\n"
        words = frozenset(opening["words"].split())
        found.append(Block(page, index + 1, opening["language"], words, text))
        index = end + 1
    return found


def reading_order(root: Path = ROOT) -> list[Path]:
    """README.md, then the pages of docs/ in the order README.md links them, then the other
    pages of docs/ by name."""
    readme = root / "README.md"
    linked: list[Path] = []
    for match in _LINK.finditer(readme.read_text("utf-8")):
        page = root / match.group(1)
        if page.exists() and page not in linked:
            linked.append(page)
    rest = sorted(set((root / "docs").glob("*.md")) - set(linked))
    return [readme, *linked, *rest]


def convention_errors(block: Block) -> list[str]:
    """What breaks the convention: a language neither run nor known as not run, a mode word
    that is not one, or a mode on a block that never runs."""
    errors = []
    if block.language not in RUNNABLE | NOT_RUN:
        errors.append(
            f"{block.where}: fence language {block.language!r}: write sh or python (run), "
            f"or one of {sorted(NOT_RUN)} (never run)"
        )
    unknown = block.words - MODES
    if unknown:
        errors.append(f"{block.where}: unknown words {sorted(unknown)} after the language")
    if block.words & MODES and block.language not in RUNNABLE:
        errors.append(f"{block.where}: {sorted(block.words)} on a block that never runs")
    return errors


def as_served(text: str, address: str) -> str:
    """The block with the documented service address replaced by the test's."""
    for written in SERVICE_ADDRESSES:
        text = text.replace(written, address)
    return text


_NAMES = {
    "source": [
        r'"source_id":\s*"([^"$]+)"',
        r"/v1/sources/([A-Za-z0-9._:-]+)",
        r'(?:register_source|add_version|withdraw_source|get_source)\(\s*"([^"]+)"',
        r'source_id="([^"]+)"',
    ],
    "policy": [r'"policy_version":\s*"([^"$]+)"', r"/v1/policies/([A-Za-z0-9._:-]+)"],
    "api key": [r"--name\s+([A-Za-z0-9._-]+)", r"keys revoke\s+([A-Za-z0-9._-]+)"],
    "idempotency key": [r"Idempotency-Key:\s*([A-Za-z0-9._:-]+)", r'idempotency_key="([^"]+)"'],
    "inference id": [r'"inference_id":\s*"([^"$]+)"', r'inference_id="([^"]+)"'],
}
BUILT_IN = {("policy", "default")}
"""Names the ledger has before any example runs."""


def code(block: Block) -> str:
    """The block without its comment lines (the answers a block shows as ``# ...``)."""
    lines = block.text.splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("#")) + "\n"


def names(block: Block) -> set[tuple[str, str]]:
    """The names of ledger things a runnable block writes or reads: source ids, policy
    versions, API key names, idempotency keys and inference ids (placeholders left out)."""
    found = set()
    for kind, patterns in _NAMES.items():
        for pattern in patterns:
            for value in re.findall(pattern, code(block)):
                if "..." not in value and (kind, value) not in BUILT_IN:
                    found.add((kind, value))
    return found
