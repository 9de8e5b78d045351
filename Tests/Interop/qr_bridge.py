"""Bridge between AuthHub's Swift QR code interop tests and two QR implementations nobody here wrote:
segno (https://pypi.org/project/segno/, a pure-Python encoder) and, when installed, zxing-cpp
(https://pypi.org/project/zxing-cpp/, a decoder) with Pillow to draw the image it reads.

Reads one JSON object from stdin, {"requests": [{"op": ..., ...}, ...]}, runs every request, and
writes {"segno": "<version>", "zxingcpp": "<version>" or null, "results": [...]} to stdout, one
result per request in order. A request that the library rejects yields {"failure": "<exception type>:
<message>"} instead of failing the whole batch, so the Swift side can assert negatives.

segno's one deviation from ISO/IEC 18004: after the terminator it always adds 8 - (length % 8) zero
bits (segno.encoder.write_padding_bits), so a bit stream that already ends on a codeword boundary
gets a whole extra 0x00 codeword before the 0xEC/0x11 pad codewords. §7.4.10 adds padding bits only
"if the bit stream length is such that it does not end at a codeword boundary". In byte mode the
stream after a full 4-bit terminator is always byte-aligned, so every symbol with room to spare is
affected. Both forms decode to the same text, but the modules differ. With "iso_padding": true (the
default) the bridge swaps in the standard rule for that one function; everything else (codewords,
Reed-Solomon, blocks, placement, masks, penalty, format and version information) is segno's own.
With "iso_padding": false segno runs untouched, which lets the Swift side show the extra codeword is
the only difference.

Operations:
  encode  text, level ("L"|"M"|"Q"|"H"), version (1-40 or null), mask (0-7 or null),
          iso_padding (default true)
          -> {"version", "mask", "level", "rows": ["0101...", ...]}
          segno encodes the text's UTF-8 bytes in byte mode, without ECI, without raising the level
          (boost_error=False) and never as a Micro QR code; rows are the module matrix without
          quiet zone, "1" for dark, top row first.
  decode  rows (as above), quiet_zone (modules), scale (pixels per module)
          -> {"bytes_hex", "level", "format"} or {"failure"} when nothing is read
          Draws the modules (black on white) into a PNG-equivalent Pillow image and reads it back
          with zxing-cpp.
"""

import json
import sys
from importlib import metadata

import segno
import segno.consts
import segno.encoder

try:
    import zxingcpp
    from PIL import Image
except ImportError:  # the decoder is optional
    zxingcpp = None


SEGNO_PADDING_BITS = segno.encoder.write_padding_bits


def iso_padding_bits(buff, version, length):
    """ISO/IEC 18004 §7.4.10: zero bits up to the next codeword boundary, none when already on one."""
    if version not in (segno.consts.VERSION_M1, segno.consts.VERSION_M3):
        buff.extend([0] * ((8 - length % 8) % 8))


def encode(req):
    segno.encoder.write_padding_bits = iso_padding_bits if req.get("iso_padding", True) else SEGNO_PADDING_BITS
    qr = segno.make(
        req["text"].encode("utf-8"),
        error=req["level"],
        version=req.get("version"),
        mask=req.get("mask"),
        mode="byte",
        eci=False,
        boost_error=False,
        micro=False,
    )
    return {
        "version": qr.version,
        "mask": qr.mask,
        "level": qr.error,
        "rows": ["".join("1" if module else "0" for module in row) for row in qr.matrix],
    }


def decode(req):
    if zxingcpp is None:
        return {"failure": "zxing-cpp is not installed"}
    rows = req["rows"]
    quiet = req.get("quiet_zone", 4)
    scale = req.get("scale", 4)
    size = len(rows) + 2 * quiet
    image = Image.new("L", (size * scale, size * scale), 255)
    pixels = image.load()
    for y, row in enumerate(rows):
        for x, module in enumerate(row):
            if module == "1":
                for dy in range(scale):
                    for dx in range(scale):
                        pixels[(x + quiet) * scale + dx, (y + quiet) * scale + dy] = 0
    found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    if not found:
        return {"failure": "no QR code found"}
    barcode = found[0]
    return {"bytes_hex": bytes(barcode.bytes).hex(), "level": barcode.ec_level, "format": str(barcode.format)}


def handle(req):
    op = req["op"]
    if op == "encode":
        return encode(req)
    if op == "decode":
        return decode(req)
    raise ValueError(f"unknown op {op!r}")


def main():
    requests = json.load(sys.stdin)["requests"]
    results = []
    for req in requests:
        try:
            results.append(handle(req))
        except Exception as error:  # noqa: BLE001 - reported to the Swift side
            results.append({"failure": f"{type(error).__name__}: {error}"})
    json.dump({
        "segno": metadata.version("segno"),
        "zxingcpp": metadata.version("zxing-cpp") if zxingcpp is not None else None,
        "results": results,
    }, sys.stdout)


if __name__ == "__main__":
    main()
