"""Why satreport misses the truth on a shape class: the diagnosis of the measured errors.

Each reason names the model quantity that is wrong, by how much, on a nest of the class
(its number in seed 0: ``python bench/differential/run.py --start K --count 1 --workdir DIR``
makes it again).  A class without a reason of its own fails only through nests that also
carry one of these classes.
"""

from __future__ import annotations

REASONS = {
    "invariant-loop": "Loops that index no array repeat a sweep: a level holding what one "
                      "repetition touches moves the data once, a smaller one at every "
                      "repetition, and the compulsory bytes count it once (n01732's 54 "
                      "repetitions of a 700-element sweep: within 1 % at L2 and L3). The worst "
                      "nests carry another class: tiles narrower than a line (n00076, +290 % "
                      "at every level), steps (n00061).",
    "time-loop": "The steps of a time loop reuse what stays in a level: one step's data (all "
                 "its nests' together) fits, the steps after the first move nothing (n00060: "
                 "L2 and L3 exact). The compulsory bytes count each step afresh for a time "
                 "loop around a call or several nests, once for one around a single nest (a "
                 "repetition of it). The worst nests carry another class: scratch tiles "
                 "(n00252), rows rounded up to whole lines where the data just fits the 16 "
                 "KiB level (n00048: 48,384 B where 22,848 B move, +112 %).",
    "index-function": "A one-dimensional array's element found by an index function of a "
                      "tile's element and origin (ix_a(tj + jj + 1, ti + ii + 1), inlined to "
                      "((tj + jj) + 1)*66 + (ti + ii) + 1) cannot be split into dimensions: "
                      "ti and ii have the same stride, and the access is read as one-"
                      "dimensional (n00114, a scratch tile: compulsory -30 % where the same "
                      "nest with two-dimensional arrays is +60 %). Index functions of plain "
                      "loop variables read as the arrays they stand for: the other nests of "
                      "the class have the errors of the same nests without them.",
    "time-loop-call": "A time loop calling a procedure beside a sibling nest is one Loops "
                      "row whose iteration space multiplies the callee's loops with the "
                      "sibling's: n00475 (a tiled callee, 6 x 6 tiles, beside a 2,000-"
                      "element sibling) compulsory 13,248,000 B where 62,112 B are touched "
                      "(x213), every level x200 to x400; the worst rows of the table. "
                      "Otherwise as time-loop.",
    "siblings": "As time-loop-call (a sibling beside a call is folded into one row). The "
                "nests of a step are taken to share no data: each is charged its own "
                "footprint, and they stay in a level from one step to the next when all of "
                "them fit it together.",
    "offsets": "Rows shorter than a few lines are rounded up to whole lines although the "
               "rows of an array lie back to back: n00142 (rows of ten 4-byte reals, 40 B "
               "charged 64 B) +60 % at every level; the compulsory bytes miss part of the "
               "halo of one-sided offsets (n01773, offsets -4 only on two axes: 96,320 B "
               "where 121,920 B are touched, -21 %, while the 2 MiB level is exact). Plain "
               "stencils in the contiguous order: median 0.5 %, 90th percentile 15 %.",
    "strided": "A strided reference x(s*i) moves a whole line per access once s x element "
               "size reaches 64 B, but the levels charge only its elements: n00027 (stride "
               "16 of 4-byte reals) 14,400 B predicted where 86,400 B move at every level "
               "(-83 %); stride 2 -25 %. The compulsory bytes (elements touched) are right.",
    "bounds:step": "A loop stepping by 2 or 3 along the contiguous axis touches every s-th "
                   "element, but the compulsory bytes count the whole range (n01214, step "
                   "3: 24,000 B where 8,000 B are touched, +200 %); the L1 of 512 B charges "
                   "a line per access (384,000 B where 24,064 B move, +1,496 %). L2 and L3 "
                   "are right (+2 %).",
    "bounds:tile-constant": "A tile narrower than a cache line is rounded up to whole lines "
                            "per tile, as if neighbouring tiles did not share lines: n00248 "
                            "(1-D copy, tiles of 4 doubles) 24,000 B at every level where "
                            "12,096 B move (+98 %).",
    "bounds:tile-runtime": "As bounds:tile-constant, with the tile size given by --set "
                           "(n00385: L2 +33 %).",
    "scratch-tile": "The scratch array a tile is copied into is charged from memory for "
                    "every tile, although it stays in every level: n00075 L2 and L3 +481 %; "
                    "compulsory +60 % (the scratch array counted once per tile); at the "
                    "512 B L1 +279 % median.",
    "indirect:sorted": "Gathers at a level far smaller than the gathered range (the 512 B "
                       "L1) are charged a line per access, although sorted indices walk "
                       "consecutive lines (n01662: 72,448 B where 20,160 B move, +259 %; "
                       "L2 and L3 exact). The compulsory bytes leave out the gathered array "
                       "(16,000 B where 18,516 B are touched, -14 %).",
    "indirect:clustered": "As indirect:sorted: runs of nearby indices share lines the small "
                          "L1 keeps (L1 +111 % median); the compulsory bytes leave out the "
                          "gathered array (-15 % median).",
    "indirect:uniform": "The compulsory bytes leave out the gathered array (-18 % median); "
                        "the levels are within 1 % at the median.",
    "indirect:scatter": "A scattered array x(idx(i)) = x(idx(i)) + ... is left out of the "
                        "compulsory bytes (n01022: 6,000 B where 13,536 B are touched, "
                        "-56 %) and over-charged at every level (70,080 B where 47,424 B "
                        "move, +48 %).",
    "csr": "The CSR gathers of x at the 512 B L1: +221 % median (n01251: 293,376 B where "
           "51,776 B move); compulsory +35 % on n01251 (21,600 B where 16,004 B are "
           "touched).",
    "reduction-lower-rank": "The array reduced into is charged with the elements of the "
                            "whole iteration space when its loop is not the innermost: "
                            "n00968 (red(i) += ... in an i-outer, j-inner nest) compulsory "
                            "46,080 B where 28,416 B are touched (+62 %), L2 and L3 +62 %.",
    "row-level": "As reduction-lower-rank (the row-level statements update the reduced "
                 "array).",
    "order:transposed": "Rows walked across (the contiguous axis outermost): the L1 of "
                        "512 B sees a line per access, the model less (median +34 % off); "
                        "with a reduction, see reduction-lower-rank.",
    "order:column": "The innermost loop strides across rows: at the 512 B L1 each access "
                    "moves a line the model does not charge (n00474: 8,064 B where 24,384 B "
                    "move, -67 %); L2 and L3 +40 % from rows rounded up to whole lines.",
    "bounds:triangular": "Triangular ranges touch part of each row; rows are rounded up to "
                         "whole lines per row (n00474 L2 +40 %). With a step, the flops "
                         "total is not exact (n01068: 864 predicted, 936 executed; n01574: "
                         "880 against 901).",
    "whole-array": "Rows are rounded up to whole lines although a whole array is "
                   "contiguous: n01400 (24 x 16 reals, 96-byte rows) 8,192 B where 6,144 B "
                   "move (+33 %). The numbers are otherwise exact (median 0 %).",
    "branch": "The else arm is weighted 1/arms (0.5), not 1 - p of its if, whose p --conds "
              "gives: n00036 (p = 0.28) multiplies per iteration 0.78 where 1 runs; the "
              "traffic also counts the arms' references by these weights.",
    "section": "Exact at the median; rows rounded up to whole lines give up to +20 %.",
}
