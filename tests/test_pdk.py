"""PDKs: the embedded library is generated; third-party ones are found or installed by sha256."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from hdlrl.cli import main
from hdlrl.errors import HdlrlError
from hdlrl.pdk import get_pdk
from hdlrl.pdk.install import install_pdk, lock_entry


def test_generic_pdk_needs_no_files_and_is_stable() -> None:
    first, second = get_pdk("generic"), get_pdk("generic")
    assert first.liberty.is_file() and first.sha256 == second.sha256
    assert "library (hdlrl_generic)" in first.liberty.read_text()[:2000]


def test_third_party_pdk_is_found_through_the_pdk_dir(pdk_dir: Path) -> None:
    pdk = get_pdk("nangate45", pdk_dir)
    assert pdk.liberty.suffix == ".lib"  # decompressed once into the cache
    assert "NAND2_X1" in pdk.liberty.read_text()


def test_missing_third_party_pdk_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HDLRL_PDK_DIR", raising=False)
    with pytest.raises(HdlrlError, match=r"sky130hd_tt.lib.gz not found .*`hdlrl pdk install sky130hd`"):
        get_pdk("sky130hd", tmp_path)


def test_install_from_a_file_url_checks_the_sha256(tmp_path: Path, pdk_dir: Path) -> None:
    url = (pdk_dir / "nangate45_typ.lib.gz").as_uri()
    installed = install_pdk("nangate45", tmp_path / "dest", url=url)
    assert hashlib.sha256(installed.read_bytes()).hexdigest() == lock_entry("nangate45")["sha256"]
    assert get_pdk("nangate45", tmp_path / "dest").name == "nangate45"


def test_install_refuses_a_file_with_the_wrong_sha256(tmp_path: Path) -> None:
    forged = tmp_path / "nangate45_typ.lib.gz"
    with gzip.open(forged, "wb") as handle:
        handle.write(b"library (forged) {}\n")
    with pytest.raises(HdlrlError, match="has sha256 .* tools.lock pins .*; not installed"):
        install_pdk("nangate45", tmp_path / "dest", url=forged.as_uri())
    assert not (tmp_path / "dest" / "nangate45_typ.lib.gz").exists()


def test_offline_install_is_a_clear_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["pdk", "install", "sky130hd", "--dest", str(tmp_path), "--url", "http://127.0.0.1:9/sky130.lib.gz"])
    error = capsys.readouterr().err
    assert code == 2
    assert error.startswith("hdlrl: error: cannot download PDK 'sky130hd' from http://127.0.0.1:9/")
    assert error.count("\n") == 1


def test_sky130_maps_and_times(tmp_path: Path, pdk_dir: Path) -> None:
    from conftest import DESIGNS_DIR
    from hdlrl.design import load_design
    from hdlrl.evaluate.cascade import evaluate
    from hdlrl.evaluate.eval_flow import load_flow

    if not (pdk_dir / "sky130hd_tt.lib.gz").exists():
        pytest.skip("sky130hd liberty not in the PDK folder")
    result = evaluate(load_design(DESIGNS_DIR / "updown_counter8"), get_pdk("sky130hd", pdk_dir), load_flow())
    assert result.verified, result.reason
    assert all(cell.startswith("sky130_fd_sc_hd__") for cell in result.synthesis.cells)
