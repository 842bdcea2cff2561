"""What the motion corpora's converters share: the `corpus.tsv` they write beside their traces."""

import os


def write_corpus(directory, rows):
    """Writes `directory/corpus.tsv`, a line per labelled stretch of a trace: `rows` of
    (file, placement, label, start, end), start and end in seconds."""
    with open(os.path.join(directory, "corpus.tsv"), "w") as out:
        out.write("# file\tplacement\tlabel\tstart\tend   (written by convert.py)\n")
        for file, placement, label, start, end in rows:
            out.write(f"{file}\t{placement}\t{label}\t{start:.2f}\t{end:.2f}\n")
