"""mkdocs hooks: make the plain-Markdown pages of docs/ build as a site, as GitHub shows them.

- Links from docs/ to files outside it (README.md, BENCHMARKS.md, examples/) work on GitHub, but
  the site holds only docs/, and mkdocs --strict refuses links it cannot follow. Each such file
  must exist (a missing one fails the build); the site shows it as its path, in code.
- A fenced code block inside a list item (indented) is a code block on GitHub; Python-Markdown's
  fences must start a line, so the fence is moved to the margin, and an ordered list that a code
  block interrupts goes on with its own numbers.
"""
import os
import re

from markdown.extensions import Extension
from mkdocs.exceptions import PluginError

LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s#]+)(#[^)\s]*)?\)")
FENCE = re.compile(r"^(\s*)```")
ITEM = re.compile(r"^(\d+\.|[-*]) ")


class _NumberedLists(Extension):
    """Ordered lists start at the number their first item has (Python-Markdown ignores it)."""

    def extendMarkdown(self, md):
        md.parser.blockprocessors["olist"].LAZY_OL = False


def on_config(config):
    config["markdown_extensions"].append(_NumberedLists())
    return config


def on_page_markdown(markdown, page, config, files):
    docs_dir = os.path.abspath(config["docs_dir"])
    root = os.path.dirname(docs_dir)
    page_dir = os.path.dirname(os.path.join(docs_dir, page.file.src_path))

    def outside(match):
        target = match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            return match.group(0)
        resolved = os.path.normpath(os.path.join(page_dir, target))
        if resolved == docs_dir or resolved.startswith(docs_dir + os.sep):
            return match.group(0)
        if not os.path.exists(resolved):
            raise PluginError(f"{page.file.src_path}: link to {target}, which does not exist")
        path = os.path.relpath(resolved, root)
        text = match.group(1)
        if text.strip("`") in (path, os.path.basename(path), target):
            return f"`{path}`"
        return f"{text} (`{path}`)"

    # after_moved: a fence was moved out of a list item since the last blank line, so the list's
    # next item needs a blank line before it to start a list again.
    lines, indent, after_moved = [], None, False
    for line in markdown.split("\n"):
        fence = FENCE.match(line)
        if indent is None and fence:
            indent = fence.group(1)
            after_moved = after_moved or bool(indent)
            lines.append(line[len(indent):])
        elif indent is not None:
            lines.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            if fence:
                indent = None
        else:
            if not line.strip():
                after_moved = False
            elif after_moved and ITEM.match(line) and lines and lines[-1].strip():
                lines.append("")
            lines.append(LINK.sub(outside, line))
    return "\n".join(lines)
