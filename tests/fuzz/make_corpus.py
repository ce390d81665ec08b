"""Writes the checked-in seed corpus under tests/fuzz/corpus/<harness>/:
a few deterministic byte strings for the FuzzedDataProvider harnesses and
small valid files for fuzz_files.  Rerun after changing a harness's input
layout: ``python tests/fuzz/make_corpus.py``."""
import io
import os
import random
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESSES = ["tensor_data", "indexing", "dlpack", "buffer",
             "array_interface", "strided", "einsum"]


def write(name, i, data):
    d = os.path.join(HERE, "corpus", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-{:02d}".format(i)), "wb") as f:
        f.write(data)


def main():
    rng = random.Random(23)
    for name in HARNESSES:
        for i, n in enumerate([0, 8, 32, 64, 128, 256]):
            write(name, i, bytes(rng.randrange(256) for _ in range(n)))
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    import tensorlib as tl
    tmp = os.path.join(HERE, "corpus", ".tmp")
    tl.save({"a": tl.arange(6, dtype="float32").reshape(2, 3),
             "b": tl.tensor([True, False])}, tmp,
            metadata={"k": "v"})
    files = [open(tmp, "rb").read()]
    os.remove(tmp)
    for a in (np.arange(4, dtype="<i4"), np.ones((2, 2), dtype=">f8"),
              np.zeros((0, 3), dtype="?"), np.asfortranarray(
                  np.arange(6, dtype="<f2").reshape(2, 3))):
        b = io.BytesIO()
        np.save(b, a)
        files.append(b.getvalue())
    b = io.BytesIO()
    np.savez(b, x=np.arange(3), y=np.eye(2, dtype="f4"))
    files.append(b.getvalue())
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        s = io.BytesIO()
        np.save(s, np.arange(5, dtype="u1"))
        z.writestr("c.npy", s.getvalue())
    files.append(b.getvalue())
    for i, data in enumerate(files):
        write("files", i, data)


if __name__ == "__main__":
    main()
