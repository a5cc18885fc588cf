"""mkdocs hooks: make the plain-Markdown pages of docs/ build as a site, as GitHub shows them.

- Links from docs/ to files outside it work on GitHub, but mkdocs --strict refuses links it cannot
  follow. README.md, BENCHMARKS.md and examples/ are published with the site, under repo/ (the two
  as pages, the examples as the files they are), and links to them are pointed there; README's
  links into docs/ are pointed at the site's pages. A link to any other file outside docs/ (test
  sources) must name a file that exists (a missing one fails the build); the site shows it as its
  path, in code.
- A fenced code block inside a list item (indented) is a code block on GitHub; Python-Markdown's
  fences must start a line, so the fence is moved to the margin, and an ordered list that a code
  block interrupts goes on with its own numbers.
"""
import os
import re

from markdown.extensions import Extension
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s#]+)(#[^)\s]*)?\)")
FENCE = re.compile(r"^(\s*)```")
ITEM = re.compile(r"^(\d+\.|[-*]) ")
# What the site publishes from outside docs/, under SITE_FOLDER, by path from the repository's root.
PUBLISHED = ("README.md", "BENCHMARKS.md", "examples")
SITE_FOLDER = "repo"


def _root(config):
    return os.path.dirname(os.path.abspath(config["docs_dir"]))


def _published(root):
    """The published files, by path from the root."""
    for entry in PUBLISHED:
        path = os.path.join(root, entry)
        if os.path.isdir(path):
            for folder, _, names in sorted(os.walk(path)):
                for name in sorted(names):
                    yield os.path.relpath(os.path.join(folder, name), root)
        elif os.path.isfile(path):
            yield entry


def on_files(files, config):
    root = _root(config)
    for path in _published(root):
        published = File(SITE_FOLDER + "/" + path, config["docs_dir"], config["site_dir"],
                         config["use_directory_urls"])
        published.abs_src_path = os.path.join(root, path)
        files.append(published)
    return files


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
    # Where the page is in the repository (a published README is at the root), and in the site.
    page_dir = os.path.dirname(page.file.abs_src_path)
    site_dir = os.path.dirname(page.file.src_path)
    in_docs = page_dir == docs_dir or page_dir.startswith(docs_dir + os.sep)
    published = set(_published(root))

    def outside(match):
        target = match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            return match.group(0)
        resolved = os.path.normpath(os.path.join(page_dir, target))
        if resolved == docs_dir or resolved.startswith(docs_dir + os.sep):
            if in_docs:
                return match.group(0)
            site_path = os.path.relpath(resolved, docs_dir)
            site_path = "index.md" if site_path == "." else site_path
        elif not os.path.exists(resolved):
            raise PluginError(f"{page.file.src_path}: link to {target}, which does not exist")
        elif os.path.relpath(resolved, root) in published:
            site_path = SITE_FOLDER + "/" + os.path.relpath(resolved, root)
        else:
            site_path = None
        if site_path is not None:
            link = os.path.relpath(site_path, site_dir or ".") + (match.group(3) or "")
            return f"[{match.group(1)}]({link})"
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
