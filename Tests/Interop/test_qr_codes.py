"""UMFA's own QR encoder (docs/contract.md §7, `umfa qr`) checked by code nobody here wrote: zxing-cpp
decodes UMFA's PNG for every version 1-40 at every error correction level, filled to capacity with
random bytes; segno and python-qrcode draw the same module matrix for the same data, version, level
and mask."""

import json
import random
from pathlib import Path

import pytest
import qrcode
import segno
import zxingcpp
from PIL import Image

LEVELS = "LMQH"
QRCODE_LEVELS = {"L": qrcode.constants.ERROR_CORRECT_L, "M": qrcode.constants.ERROR_CORRECT_M,
                 "Q": qrcode.constants.ERROR_CORRECT_Q, "H": qrcode.constants.ERROR_CORRECT_H}


def symbol(umfa, tmp_path: Path, data: bytes, level: str, version: int | None = None, mask: int | None = None,
           png: Path | None = None) -> tuple[dict, list[str]]:
    """`umfa qr --matrix` for `data`: the JSON line and the matrix rows (and a PNG when asked)."""
    source = tmp_path / "data.bin"
    source.write_bytes(data)
    args = ["qr", "--input", source, "--ecc", level, "--matrix"]
    if version is not None:
        args += ["--version", version]
    if mask is not None:
        args += ["--mask", mask]
    if png is not None:
        args += ["--png", png]
    result = umfa.ok(*args)
    first, *rows = result.stdout.splitlines()
    return json.loads(first), rows


@pytest.mark.parametrize("level", LEVELS)
def test_zxing_decodes_every_version_filled_with_random_bytes(umfa, tmp_path, level):
    rng = random.Random(f"umfa-qr-{level}")
    for version in range(1, 41):
        info, _ = symbol(umfa, tmp_path, b"x", level, version=version)
        capacity = info["capacity"]
        data = rng.randbytes(capacity)
        png = tmp_path / f"v{version}{level}.png"
        info, rows = symbol(umfa, tmp_path, data, level, png=png)
        assert info["version"] == version and info["size"] == 17 + 4 * version == len(rows), info
        found = zxingcpp.read_barcodes(Image.open(png), formats=zxingcpp.BarcodeFormat.QRCode)
        assert len(found) == 1, f"version {version}-{level}: zxing found {len(found)} codes"
        assert found[0].bytes == data, f"version {version}-{level}: zxing decoded other bytes"
        assert found[0].ec_level == level, found[0].ec_level
        # One more byte does not fit that version: the next one is chosen.
        if version < 40:
            assert symbol(umfa, tmp_path, data + b"!", level)[0]["version"] == version + 1


def test_segno_and_python_qrcode_draw_the_same_matrix_for_the_same_version_level_and_mask(umfa, tmp_path):
    """segno pads a byte-aligned stream with a whole zero codeword after the terminator (ISO/IEC
    18004 §7.4.10 adds padding bits only when the stream does not end at a codeword boundary), so it
    is compared at full capacity, where there is no room for that codeword; python-qrcode follows
    §7.4.10 and is compared at any length."""
    rng = random.Random("umfa-qr-references")
    for version in (1, 2, 6, 7, 10, 14, 21, 27, 32, 40):
        for level in LEVELS:
            info, _ = symbol(umfa, tmp_path, b"x", level, version=version)
            mask = rng.randrange(8)
            full = rng.randbytes(info["capacity"])
            _, rows = symbol(umfa, tmp_path, full, level, version=version, mask=mask)
            reference = segno.make(full, version=version, error=level.lower(), mask=mask, mode="byte",
                                   boost_error=False, micro=False)
            assert rows == matrix_rows(reference.matrix), f"segno, version {version}-{level} mask {mask}"
            part = rng.randbytes(rng.randint(1, info["capacity"] - 1))
            _, rows = symbol(umfa, tmp_path, part, level, version=version, mask=mask)
            other = qrcode.QRCode(version=version, error_correction=QRCODE_LEVELS[level], mask_pattern=mask, border=0)
            other.add_data(qrcode.util.QRData(part, mode=qrcode.util.MODE_8BIT_BYTE))
            other.make(fit=False)
            assert rows == matrix_rows(other.modules), f"python-qrcode, version {version}-{level} mask {mask}"


def matrix_rows(matrix) -> list[str]:
    return ["".join("1" if module else "0" for module in row) for row in matrix]


def test_the_automatic_mask_and_version_decode_too(umfa, tmp_path):
    link = "https://login.shop.example/open?t=umfa_dt_3kq9fZbE1xJmW0aQp7vN2c"
    for level in LEVELS:
        png = tmp_path / f"link-{level}.png"
        symbol(umfa, tmp_path, link.encode(), level, png=png)
        found = zxingcpp.read_barcodes(Image.open(png))
        assert [code.text for code in found] == [link]
    svg = tmp_path / "link.svg"
    assert umfa.ok("qr", link, "--svg", svg).stdout == ""
    assert svg.read_text().startswith("<?xml") and "<path d=\"M" in svg.read_text()
    terminal = umfa.ok("qr", link).stdout
    assert "\u2588" in terminal and len(terminal.splitlines()) >= 15
    refused = umfa.run("qr", "x" * 3000, "--ecc", "L")
    assert refused.code != 0 and "do not fit" in refused.stderr
