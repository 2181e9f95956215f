#!/usr/bin/env python3
"""Writes the seed corpus in fuzz/corpus/: the Netpbm-made images in data/ and the malformed
inputs of tests/ppm_bad_input_test.cpp for the PPM targets, texts with every line ending for
lines, and small string tables (valid and damaged) for string_table. Each seed starts with
the parameter byte the targets read first. Run from anywhere; rewrites the directory."""

import hashlib
import pathlib
import struct

root = pathlib.Path(__file__).resolve().parent.parent
corpus = root / "fuzz" / "corpus"

malformed_ppm = [
    b"", b"P", b"P7\nWIDTH 1\n", b"P5 1 1 255\n\x01", b"p6 1 1 255\n...", b"P0",
    b"\xef\xbb\xbfP6 1 1 255\n...", b"P6 0 2 255\n", b"P6 2 0 255\n", b"P6 -1 2 255\n",
    b"P6 +1 2 255\n", b"P6 12345678901234567890 1 255\n", b"P3 1 4294967296 255\n",
    b"P6 2 2 0\n", b"P6 2 2 65536\n", b"P3 2 2 70000\n",
    b"P6 1 1 1000000000000000000000000000000000000000\n", b"P6 12abc 1 255\n",
    b"P6 0x10 1 255\n", b"P6 1 1 255X", b"P6 2 ", b"P6 2 2 255", b"P6 2 # a comment",
    b"P6 1 1 255#x", b"P6 65536 65536 255\n\x01\x02\x03\x04",
    b"P6 37838 37838 255\n\x01\x02\x03\x04", b"P3 100000 100000 255\n1 ",
    b"P6 4294967295 4294967295 255\n\x01\x02\x03\x04", b"P3 2 1 255\n1 2 3 4 5\n",
    b"P3 1 1 255\n", b"P3 1 1 255", b"P3 1 1 255 1 2 #3\n", b"P3 2 1 255\n1 300 3\n",
    b"P3 1 2 255\n0 0 0\n0 0 256\n", b"P3 1 1 255 99999999999999999999 1 1",
    b"P6 2 1 100\n\x01\x02\x03\x04\xc8\x06", b"P3 1 1 255\n1 -2 3\n", b"P3 1 1 255\n1 2x 3\n",
    b"P3 1 1 255\n1\x00 2 3", b"P3 1 1 65535 65536 1 1", b"P3 1 1 1000\n1 1001 1\n",
    b"P6 1 1 65535\n\x00\x00\x00\x00\x00\x00", b"P3 1 1 256\n0 0 0\n",
    b"P62 1\n255\n\x01\x02\x03\x04\x05\x06", b"P6#c\n1 1 255\n\x01\x02\x03",
    b"P3\n2#c\n1 255\r\n0 1 2\t3\x0b4\x0c5\n", b"P3 1 1 255\n0000255 007 0\n",
    b"P6 1 1 255\n\x01\x02\x03P6 1 1 255\n\x04\x05\x06 garbage",
    b"P3 1 1 255 1 2 3\n\nP3 1 1 255 4 5 6\n",
]


malformed_pnm = [
    b"P1 2 2\n0 1 2", b"P1 2 2\n0 1 1", b"P1 20 1\n0000000000x000000000", b"P1 2 1\n0#1",
    b"P4 9 2\n\xff\xff\xff", b"P4 9 2\n", b"P4 9 2", b"P2 2 1 10 5 11", b"P5 2 1 100\n\x05\x65",
    b"P5 2 1 1000\n\x03\xe8\x03", b"P7 x\n", b"P7", b"P7\nWIDTH 1\nCOLORS 3\n",
    b"P7\nWIDTH 12x\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n",
    b"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 100\nENDHDR\n\x01\xc8\x01\x01",
    b"P7\n#c\nMAXVAL 255\n\n  DEPTH\t2  \nHEIGHT 1\nWIDTH 2\nTUPLTYPE A\nTUPLTYPE B\nENDHDR\n\x01\x02\x03\x04",
    b"P7\nWIDTH 100000\nHEIGHT 100000\nDEPTH 4\nMAXVAL 255\nENDHDR\n\x01",
    b"P1 3 2 0#c\n1 0 1#x\r0\t1", b"P3 1 1 255 1 2 3#c\nP2 1 1 9 4#d\nP1 2 1 01#e",
]
malformed_pfm = [
    b"", b"P6 1 1 255\n\x01\x02\x03", b"PG\n", b"PF1 1\n-1\n", b"PF\n0 1\n-1\n",
    b"PF\n1 1\n0\n", b"PF\n1 1\n1e99\n", b"PF\n1 1\n-1", b"PF\n2 1\n-1\n" + b"\0" * 11,
    b"PF\n100000 100000\n-1\n\0\0", b"Pf\n1 2\n-2.5\n\0\0\xc0\xbf\0\0\x80\x3e",
    b"PF\n  3\t1 \n  +1e0 " + b"\0\0\x80\x3f" * 9,
]


def seed(target, data, param):
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    blob = bytes([param]) + data
    (d / hashlib.sha1(blob).hexdigest()[:16]).write_bytes(blob)


def string_table(strings):
    data = b"".join(strings)
    offsets = [0]
    for s in strings:
        offsets.append(offsets[-1] + len(s))
    count = len(strings)
    offsets_pos = 64
    data_pos = offsets_pos + 8 * (count + 1)
    header = b"\x89STB\r\n\x1a\n" + struct.pack("<HH", 1, 0) + b"\x04\x03\x02\x01"
    header += struct.pack("<QQQQQ", count, offsets_pos, data_pos, len(data),
                          data_pos + len(data))
    header += b"\0" * (64 - len(header))
    return header + b"".join(struct.pack("<Q", o) for o in offsets) + data


def main():
    if corpus.exists():
        for f in corpus.rglob("*"):
            if f.is_file():
                f.unlink()
    images = [p.read_bytes() for p in sorted((root / "data").glob("*.ppm"))]
    for i, data in enumerate(images + malformed_ppm):
        seed("ppm_load", data, (i * 37) & 0xFF)
        seed("ppm_reader", data, (i * 11) & 0xFF)
        seed("ppm_levels", data, (i * 2) & 0xFE)  # even: the input's own header
    family = [p.read_bytes() for p in sorted((root / "data").glob("*.p[bgpa]m"))]
    for i, data in enumerate(family + malformed_pnm + malformed_ppm[:12]):
        seed("pnm_load", data, (i * 37) & 0xFF)
        seed("pnm_reader", data, (i * 11) & 0xFF)
    pfms = [p.read_bytes() for p in sorted((root / "data").glob("*.pfm"))]
    for i, data in enumerate(pfms + malformed_pfm):
        seed("pfm_load", data, (i * 29) & 0xFF)
    for digits in (b"0 1 22 255 007\n" * 40, b"65535 1 00000 9\r\n" * 40):
        for param in (1, 3, 5, 7):
            seed("ppm_levels", digits, param)
    texts = [b"", b"a", b"a\nb\n", b"a\r\nb\r\n\r\n", b"\n\n\n", b"no newline at the end",
             b"x" * 100 + b"\n" + b"y" * 3 + b"\r", b"a\0b\0c\0", b"\r\n" * 50]
    for i, text in enumerate(texts):
        for param in (1, 3, 7, 0x20, 0x41, 0xFE):
            seed("lines", text, (param + i) & 0xFF)
    good = string_table([b"alpha", b"", b"gamma\0delta", b"x" * 300])
    tables = [string_table([]), string_table([b""]), good]

    def patched(at, data):
        t = bytearray(good)
        t[at:at + len(data)] = data
        return bytes(t)

    count = 4
    tables += [  # one seed per rule of docs/string-table.md, as in tests/string_table_test.cpp
        b"", good[:10], good[:63],                                  # shorter than the header
        patched(0, b"\x89STB\n\x1a\n\0"),                         # magic (CRLF damage)
        patched(8, struct.pack("<H", 2)),                            # future major version
        patched(12, b"\x01\x02\x03\x04"),                           # byte-swapped mark
        patched(56, b"\x01"),                                        # reserved bytes
        good[:-1], good + b"\0",                                     # file size field
        patched(16, struct.pack("<Q", 1 << 60)),                     # count too large
        patched(24, struct.pack("<Q", 8)),                           # offsets in the header
        patched(24, struct.pack("<Q", 68)),                          # unaligned offsets
        patched(32, struct.pack("<Q", 72)),                          # data inside the offsets
        patched(40, struct.pack("<Q", 1)),                           # data size
        patched(64, struct.pack("<Q", 1)),                           # first offset not 0
        patched(64 + 16, struct.pack("<Q", 0)),                      # decreasing offsets
        patched(64 + 8 * count, struct.pack("<Q", 1 << 40)),         # last offset past the end
    ]
    for t in tables:
        if t:
            seed("string_table", t[1:], t[0])
        else:
            seed("string_table", b"", 0)


main()
