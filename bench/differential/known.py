"""Why satreport misses the truth on a shape class: the diagnosis of the measured errors.

Each reason names the model quantity that is wrong, by how much, on a nest of the class
(its number in seed 0: ``python bench/differential/run.py --start K --count 1 --workdir DIR``
makes it again).  A class without a reason of its own fails only through nests that also
carry one of these classes.
"""

from __future__ import annotations

REASONS = {
    "bounds:triangular-nested": "A loop that only moves one end of an inner loop's range (do "
                                "m = k + 2, n) repeats overlapping ranges: the compulsory "
                                "bytes count the mean range once (median 2 %, a few per cent "
                                "below the widest range the execution touches). The worst "
                                "nests carry another class (stepped rows, index functions).",
    "invariant-loop": "Loops that index no array repeat a sweep: a level holding what one "
                      "repetition touches moves the data once, a smaller one at every repetition, "
                      "and the compulsory bytes count it once (n01732's 54 repetitions of a "
                      "700-element sweep: within 1 % at L2 and L3). The worst nests carry another "
                      "class: tiles narrower than a line (n00076, +28 % at every level), steps "
                      "(n00061).",
    "time-loop": "The steps of a time loop reuse what stays in a level: one step's data (all its "
                 "nests' together) fits, the steps after the first move nothing (n00060: L2 and L3"
                 " exact). The compulsory bytes count each step afresh for a time loop around a "
                 "call or several nests, once for one around a single nest (a repetition of it). "
                 "The worst nests carry another class: scratch tiles (n00252), rows rounded up to "
                 "whole lines where the data just fits the 16 KiB level (n00048: 48,384 B where "
                 "22,848 B move, +112 %).",
    "index-function": "Index functions read as the arrays they stand for, a tile's origin and "
                      "element included (ix_a(tj + jj + 1, ti + ii + 1) is a[tj + jj + 1][ti + "
                      "ii + 1]): every nest of the class has the errors of the same nest written "
                      "with multi-dimensional arrays (n00609, n00288: identical). What is left "
                      "is the scratch tiles' cache levels (see scratch-tile) and branches.",
    "time-loop-call": "A time loop calling a procedure beside a sibling nest is one Loops row "
                      "whose iteration space multiplies the callee's loops with the sibling's: "
                      "n00475 (a tiled callee, 6 x 6 tiles, beside a 2,000-element sibling) "
                      "compulsory 13,248,000 B where 62,112 B are touched (x213), every level x200"
                      " to x400; the worst rows of the table. Otherwise as time-loop.",
    "siblings": "As time-loop-call (a sibling beside a call is folded into one row). The nests of "
                "a step are taken to share no data: each is charged its own footprint, and they "
                "stay in a level from one step to the next when all of them fit it together.",
    "offsets": "Plain stencils are exact at the median at every level (the union of the shifted "
               "grids in the compulsory bytes, rows walked back to back sharing their lines). The "
               "worst nests carry another class: a loop that only moves an inner loop's bound "
               "(bounds:triangular-nested), stepped rows at the 512 B L1 (bounds:step).",
    "strided": "Exact: a strided reference moves every line of its range while its stride is "
               "shorter than a line, a line per access once it is not.",
    "bounds:step": "A loop stepping along the contiguous axis costs a line per access and its "
                   "compulsory bytes count the elements it touches (exact). A loop stepping by 2 "
                   "or 3 along rows or planes charges each offset's own row once where a level "
                   "moves a line per access (n00159: L1 -4 %). Its working set within pencils "
                   "still counts each folded offset in every row of the step, so a small level "
                   "may be taken to keep nothing: n01093 (i += 3, seven offsets on five rows) "
                   "is charged a line per access at the 512 B L1, where its rows stay "
                   "(+1,571 %); L2 and L3 +4 %.",
    "bounds:tile-constant": "1-D tiles narrower than a line share their lines (exact). Tiles of "
                            "two or three dimensions narrower than a line keep whole lines per "
                            "tile row at L2 and L3 where the level does not hold every whole array "
                            "(median 7 %); a scratch tile's short element "
                            "loop is a run of neighbours sharing lines, the reuse between the "
                            "copy and the product is not modelled (see scratch-tile).",
    "bounds:tile-runtime": "As bounds:tile-constant, with the tile size given by --set.",
    "scratch-tile": "The scratch tile counts once in the compulsory bytes (median 0.2 %). A tile "
                    "of 4 or 8 elements along the contiguous axis is read as component copies, "
                    "each cell's copies a run of neighbouring elements sharing lines at the "
                    "levels; the reuse of the tile's lines between the copy and the product and "
                    "between neighbouring tiles is not modelled (L1 from -49 % to +70 %). Tiles "
                    "of 16 elements take the tile's rows as X, and the copy and product each "
                    "count only their own lines (L1 -20 to -45 %). A level that holds every "
                    "whole array moves each at most once (L2 and L3 median 5 %, p90 11 %); "
                    "the tiles' rows narrower than a line still take whole lines per tile where "
                    "the arrays do not all fit.",
    "indirect:sorted": "The compulsory bytes take the expected distinct elements of uniform "
                       "indices (median 0.3 %). The levels take uniform indices too (the source "
                       "does not show the index values; ClusterElems_ gives their locality): at a"
                       " level smaller than the gathered range (the 512 B L1) sorted indices, "
                       "which walk consecutive lines, move fewer lines than charged (L1 median "
                       "+32 %); L2 and L3 within 3 % at the median.",
    "indirect:clustered": "As indirect:sorted: runs of nearby indices share lines the small L1 "
                          "keeps (L1 median +56 %); the compulsory bytes assume uniform indices, "
                          "a few per cent high for clustered ones (p90 14 %).",
    "indirect:uniform": "The compulsory bytes and the levels are within 3 % at the median (a "
                        "gather in a called procedure is the calling nest's, n01539). The worst "
                        "nests carry another class.",
    "indirect:scatter": "As indirect:sorted for the levels (L1 median +113 %, L2 +22 %); the "
                        "compulsory bytes assume uniform indices (median 3 %).",
    "csr": "The compulsory bytes are within 1 % at the median (the gathered x as the expected "
           "distinct elements); a row's val and col are one stream at every level (L1 median "
           "14 %); the gathers of x take uniform indices, so sorted and "
           "clustered rows, whose nearby indices share the lines the 512 B L1 keeps, are "
           "charged more lines than they move; L2 and L3 within 2 % at the median.",
    "reduction-lower-rank": "An array reduced into counts the axes it steps along only (exact at "
                            "the median). The worst nests carry another class (stepped rows, loops"
                            " that move an inner loop's bound).",
    "row-level": "As reduction-lower-rank.",
    "order:transposed": "Rows walked across (the contiguous axis outermost): at the 512 B L1 a "
                        "line per access, the model less (L1 median +28 %). The worst nest, n00496"
                        " (a tiled, stepped, transposed 3-D stencil called twice from a time "
                        "loop), is charged 150 x the measured traffic at the 16 KiB level, where "
                        "its data fits: the layer condition of a transposed walk through tiles is "
                        "taken as failed.",
    "order:column": "A short loop over the contiguous dimension (eight trips or fewer) is read as "
                    "component copies, so the next dimension is taken as the contiguous axis: the "
                    "512 B L1 sees a line per access the model does not charge, and the compulsory"
                    " bytes count whole rows (n00764: L1 +77 %, compulsory -18 %).",
    "bounds:triangular": "Flops and trips are exact (a step included). Triangular ranges touch "
                         "part of each row: rows are rounded up to whole lines per row (L2 and L3 "
                         "median +13 to +17 %).",
    "whole-array": "Exact at the median; a level that holds the array but not with its lines "
                   "rounded (n00785: L2 +260 %) is charged again.",
    "branch": "Flops follow the arms' probabilities (an else runs what its if leaves). The "
              "compulsory bytes count an element that references only inside arms reach from k "
              "iterations with probability 1 - (1 - p)^k, iterations taking arms independently; "
              "the cache levels count each arm's references by its probability, while the cache "
              "keeps the lines either arm touched.",
    "section": "Exact at the median; one nest (n01497) at the 16 KiB level +227 %.",
}
