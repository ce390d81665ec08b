"""Fuzzes the file readers (tensorlib.load: safetensors, .npy, .npz;
load_metadata) with arbitrary bytes, seeded by valid files (make_corpus.py).
Each input is loaded eagerly and memory-mapped; the only acceptable
outcomes are a load whose tensors are all readable or a ValueError (the
readers' documented error class)."""
import os
import tempfile

import _common
from _common import atheris

tl = _common.import_tensorlib()

DIR = tempfile.mkdtemp(prefix="tl-fuzz-files-")
PATH = os.path.join(DIR, "input")


def TestOneInput(data):
    with open(PATH, "wb") as f:
        f.write(data)
    for mmap in (False, True):
        try:
            obj = tl.load(PATH, mmap=mmap)
        except ValueError:
            continue
        items = obj.values() if isinstance(obj, dict) else [obj]
        for t in items:
            _common.touch(t)
        del obj, items
    try:
        tl.load_metadata(PATH)
    except ValueError:
        pass


if __name__ == "__main__":
    _common.main(TestOneInput)
