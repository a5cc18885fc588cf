"""mkdocs hook: links from docs/ to files outside it (README.md, BENCHMARKS.md, examples/).

They work on GitHub, where the pages are read as plain Markdown, but the site holds only docs/,
and mkdocs --strict refuses links it cannot follow. The hook checks that each such file exists
(a missing one fails the build) and shows it on the site as its path, in code.
"""
import os
import re

from mkdocs.exceptions import PluginError

LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s#]+)(#[^)\s]*)?\)")
FENCE = re.compile(r"^\s*```")


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

    lines, fenced = [], False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        lines.append(line if fenced else LINK.sub(outside, line))
    return "\n".join(lines)
