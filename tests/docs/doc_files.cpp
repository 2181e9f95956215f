// Makes, in the directory given, the files the examples of README.md and docs/guide/ read:
// written byte by byte here, not with fastread, so that an example that decodes them checks
// fastread against an independent writer.
//   doc_files DIR
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace {

void write(const std::filesystem::path& path, const std::string& bytes) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "doc_files: cannot write %s\n", path.string().c_str());
        std::exit(1);
    }
}

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += s;
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fputs("usage: doc_files DIR\n", stderr);
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    // Numbers (docs/guide/numbers.md): samples, a point cloud with a comment, an edge list,
    // a Matrix Market file, a CSV with a header, and one with a bad token.
    write(dir / "samples.txt", "0.5 1.5\n2.5\n-4.5e0\n");
    write(dir / "cloud.xyz", "# x y z\n1 2 3\n4 5 6 # the second point\n");
    write(dir / "edges.txt", "0\t1\n1\t2\n2\t0\n");
    write(dir / "m.mtx", "%%MatrixMarket matrix coordinate real general\n% 3 by 3, 2 entries\n"
                         "3 3 2\n1 1 0.5\n3 2 -1.25\n");
    write(dir / "prices.csv", "open,close\n1.5,2.25\n3,4.75\n");
    write(dir / "pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n"
                               "1 1\n2 3\n3 1\n");
    write(dir / "bunny.ply", "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\n"
                             "property float y\nproperty float z\nelement face 2\n"
                             "property list uchar int vertex_indices\nend_header\n"
                             "0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n3 0 2 3\n");
    write(dir / "export.csv", "Temperatur;Druck\n21,5;1013,25\n-3,125;998\n");
    write(dir / "nist.dat", "  1.0D+03   2.5d-1\n");
    write(dir / "bad.xyz", "1 2 3\n4 1.2.3 6\n");
    // Delimited text (docs/guide/csv.md): a trip export with a BOM, a missing tip and a
    // quoted vendor; reviews with quoted text over two lines; a TSV; a bad value.
    write(dir / "trips.csv", "\xEF\xBB\xBFvendor_id,fare_amount,tip_amount,passengers\n"
                             "CMT,12.5,2.5,1\n\"VTS, Inc\",7.25,NA,2\nDDS,30,,1\n");
    write(dir / "reviews.csv", "id,stars,text\n1,5,\"Great, \"\"really\"\" great\"\n"
                               "2,2,\"Too slow.\nWould not buy again.\"\n");
    write(dir / "genes.tsv", "gene\tcount\nBRCA1\t12\nTP53\t7\n");
    write(dir / "bad.csv", "a,b\n1,2\n3,x\n");
    write(dir / "rides.csv", "pickup,dropoff_date,minutes\n2024-01-31 23:50:00,2024-02-01,15\n"
                             "2024-02-01T08:00:00+01:00,2024-02-01,42\n");
    // Netpbm images: a 4x3 raw PGM, a 3x2 raw PPM, a 2x2 16-bit raw PPM, a plain PPM,
    // a 2x2 PAM with alpha, a PBM.
    write(dir / "a.pgm", std::string("P5\n4 3\n255\n") +
                             std::string("\x00\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xff", 12));
    write(dir / "photo.ppm", std::string("P6\n# made by doc_files\n3 2\n255\n") +
                                 std::string("\xff\x00\x00\x00\xff\x00\x00\x00\xff"
                                             "\x10\x20\x30\x40\x50\x60\x70\x80\x90",
                                             18));
    write(dir / "a.ppm", std::string("P6\n2 2\n65535\n") +
                             std::string("\x9f\xab\x00\x01\x02\x03\xff\xff\x00\x00\x12\x34"
                                         "\x00\x10\x00\x20\x00\x30\x40\x00\x50\x00\x60\x00",
                                         24));
    write(dir / "plain.ppm", "P3\n2 1\n255\n255 0 0  0 0 255\n");
    // Cut short: a 2x2 raster of 12 bytes with 5 (docs/guide/errors.md).
    write(dir / "truncated.ppm", std::string("P6 2 2 255\n") + "\x01\x02\x03\x04\x05");
    write(dir / "frame.pam", std::string("P7\nWIDTH 2\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\n"
                                         "TUPLTYPE RGB_ALPHA\nENDHDR\n") +
                                 std::string("\x01\x02\x03\xff\x04\x05\x06\x80"
                                             "\x07\x08\x09\x40\x0a\x0b\x0c\x00",
                                             16));
    write(dir / "mask.pbm", "P1\n3 2\n1 0 1\n0 1 0\n");
    // A 2x2 PFM, little-endian (negative scale), rows bottom to top.
    std::string pfm = "PF\n2 2\n-1.0\n";
    for (int i = 0; i < 12; ++i) {
        const float f = static_cast<float>(i) / 4.0f;
        char b[4];
        std::memcpy(b, &f, 4);
        if (std::endian::native == std::endian::big) {
            std::swap(b[0], b[3]);
            std::swap(b[1], b[2]);
        }
        pfm.append(b, 4);
    }
    write(dir / "a.pfm", pfm);
    // Text: a log with two ERROR lines, CR LF included; a CSV line.
    write(dir / "app.log", "INFO start\r\nERROR disk full\nINFO retry\nERROR again\nINFO done\n");
    write(dir / "data.csv", "id,name,size\n1,a,10\n2,b,20\n");
    // 1,000 records of a 4-byte integer, record i holding i * 10.
    std::string records;
    for (std::int32_t i = 0; i < 1000; ++i) {
        const std::int32_t v = i * 10;
        records.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    write(dir / "t.bin", records);
    // Two equal files and a tree of photos: three copies (one in a subdirectory) and one
    // that differs only in its last byte.
    const std::string big = repeat("fastread ", 20000);
    write(dir / "a.iso", big);
    write(dir / "b.iso", big);
    write(dir / "photos" / "beach.jpg", big + "1");
    write(dir / "photos" / "copy of beach.jpg", big + "1");
    write(dir / "photos" / "2025" / "beach.jpg", big + "1");
    write(dir / "photos" / "dunes.jpg", big + "2");
    return 0;
}
