"""Help ▸ User Guide: the user's guide shipped inside the package (``fabricviz.assets`` ``guide/``),
rendered as Markdown, one page per file, links between pages followed inside the window.

The pages are ``assets/guide/N-name.md``, listed in the order of their number and named by their
first heading. Being package data, they are there in a source checkout, an editable install and
an installed wheel alike; installing fabricviz is the README's business, not the guide's.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

import fabricviz
from fabricviz.resources import asset_path

APP_NAME = "fabricviz"
#: Shown when the guide's folder is missing (a broken install).
NO_GUIDE = "The user guide is not installed with this copy of fabricviz (fabricviz.assets: guide/)"
#: Pictures wider than this are scaled down to it.
GUIDE_IMAGE_WIDTH = 860


def guide_root() -> Path | None:
    """The folder of the guide's pages in the installed package (None when it is missing)."""
    try:
        root = asset_path("guide")
    except FileNotFoundError:
        return None
    return root if root.is_dir() else None


def guide_pages(root: Path) -> list[Path]:
    """The guide's pages in ``root``: ``N-name.md`` by N, then any other ``*.md`` by name."""
    def order(p: Path) -> tuple[int, str]:
        m = re.match(r"(\d+)-", p.name)
        return (int(m.group(1)) if m else 10**9, p.name)
    return sorted(root.glob("*.md"), key=order) if root.is_dir() else []


def page_title(path: Path) -> str:
    """A page's name in the side list: its first ``# heading`` (else the file name in words)."""
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    except OSError:
        pass
    words = re.sub(r"^\d+-", "", path.stem).replace("-", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else path.name


class GuideWindow(QtWidgets.QDialog):
    """The guide's pages rendered as Markdown; a side list switches pages, local links to another
    page open it there, pictures load from beside the page."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, root: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guide_window")
        self.setWindowTitle(f"User Guide \u2014 {APP_NAME}")
        self.setWindowFlag(QtCore.Qt.WindowType.Window, True)
        self.setWindowFlag(QtCore.Qt.WindowType.WindowMaximizeButtonHint, True)
        self.setModal(False)
        self.resize(1100, 780)
        found = guide_root() if root is None else Path(root)
        self.root: Path | None = found.resolve() if found is not None else None
        lay = QtWidgets.QVBoxLayout(self)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal, self)
        self.page_list = QtWidgets.QListWidget(split)
        self.page_list.setObjectName("guide_pages")
        self.browser = QtWidgets.QTextBrowser(split)
        self.browser.setObjectName("guide_browser")
        self.browser.setOpenLinks(False)
        split.addWidget(self.page_list)
        split.addWidget(self.browser)
        split.setStretchFactor(1, 1)
        split.setSizes([220, 880])
        lay.addWidget(split)
        self.current: Path | None = None
        self.page_list.currentRowChanged.connect(self._row_changed)
        self.browser.anchorClicked.connect(self.follow)
        self.refresh()

    # pages
    def pages(self) -> list[Path]:
        """The guide's pages, in reading order."""
        return guide_pages(self.root) if self.root is not None else []

    def refresh(self) -> None:
        """Re-read the page list and show the page shown before (else the first)."""
        keep = self.current
        self.page_list.blockSignals(True)
        self.page_list.clear()
        for p in self.pages():
            it = QtWidgets.QListWidgetItem(page_title(p))
            it.setData(QtCore.Qt.ItemDataRole.UserRole, str(p))
            it.setToolTip(p.name)
            self.page_list.addItem(it)
        self.page_list.blockSignals(False)
        self.page_list.setVisible(self.page_list.count() > 1)
        if not self.page_list.count():
            self._show_builtin()
        elif not (keep is not None and self.show_page(keep)):
            self.page_list.setCurrentRow(0)
            self._row_changed(0)

    def _row_changed(self, row: int) -> None:
        it = self.page_list.item(row)
        if it is not None:
            self._render(Path(it.data(QtCore.Qt.ItemDataRole.UserRole)))

    def show_page(self, page: str | Path) -> bool:
        """Show ``page`` (a path, or a file name in the guide such as ``"4-sweep.md"``); False when
        it is not one of the guide's pages."""
        p = Path(page)
        if not p.is_absolute():
            if self.root is None:
                return False
            p = self.root / p
        p = p.resolve()
        for row in range(self.page_list.count()):
            if Path(self.page_list.item(row).data(QtCore.Qt.ItemDataRole.UserRole)).resolve() == p:
                if self.page_list.currentRow() == row:
                    self._render(p)
                else:
                    self.page_list.setCurrentRow(row)
                return True
        return False

    def _show_builtin(self) -> None:
        self.current = None
        self.browser.setSearchPaths([])
        self.browser.document().setBaseUrl(QtCore.QUrl())
        self.browser.setMarkdown(f"# {APP_NAME} {fabricviz.__version__}\n\n{NO_GUIDE}.\n")

    def _render(self, path: Path) -> None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            text = f"# {path.name}\n\ncannot read this page ({exc.strerror or exc})\n"
        self.current = path
        folder = str(path.parent)
        self.browser.setSearchPaths([folder])
        self.browser.document().setBaseUrl(QtCore.QUrl.fromLocalFile(folder + "/"))
        self.browser.setMarkdown(text)
        self._fit_images()
        self.browser.verticalScrollBar().setValue(0)

    def _fit_images(self) -> None:
        """Scale pictures wider than :data:`GUIDE_IMAGE_WIDTH` down (aspect kept)."""
        if self.current is None:
            return
        doc = self.browser.document()
        base = self.current.parent
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                if fmt.isImageFormat():
                    img = fmt.toImageFormat()
                    size = QtGui.QImageReader(str(base / img.name())).size()
                    if size.isValid() and size.width() > GUIDE_IMAGE_WIDTH:
                        img.setWidth(GUIDE_IMAGE_WIDTH)
                        img.setHeight(size.height() * GUIDE_IMAGE_WIDTH / size.width())
                        cur = QtGui.QTextCursor(doc)
                        cur.setPosition(frag.position())
                        cur.setPosition(frag.position() + frag.length(), QtGui.QTextCursor.MoveMode.KeepAnchor)
                        cur.setCharFormat(img)
                it += 1
            block = block.next()

    def follow(self, url: QtCore.QUrl) -> None:
        """A clicked link: another guide page opens here, an anchor scrolls, the rest goes to
        the desktop (browser, image viewer)."""
        if url.scheme() in ("", "file"):
            local = url.toLocalFile() if url.scheme() == "file" else url.path()
            if not local:                         # "#section" on this page
                if url.fragment():
                    self.browser.scrollToAnchor(url.fragment())
                return
            base = self.current.parent if self.current is not None else self.root
            target = Path(local) if Path(local).is_absolute() or base is None else base / local
            if self.show_page(target):
                if url.fragment():
                    self.browser.scrollToAnchor(url.fragment())
                return
            url = QtCore.QUrl.fromLocalFile(str(target.resolve()))
        QtGui.QDesktopServices.openUrl(url)


__all__ = ["GUIDE_IMAGE_WIDTH", "GuideWindow", "NO_GUIDE", "guide_pages", "guide_root", "page_title"]
