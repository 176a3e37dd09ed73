"""Why satreport misses the truth on a shape class: the diagnosis of the measured errors.

Each reason names the model quantity that is wrong, by how much, on a nest of the class
(its number in seed 0: ``python bench/differential/run.py --start K --count 1 --workdir DIR``
makes it again).  A class without a reason of its own fails only through nests that also
carry one of these classes.
"""

from __future__ import annotations

REASONS = {
    "bounds:triangular-nested": "A loop that subscripts nothing and only moves one end of inner "
                                "ranges (do k = j + 4, n inside do j) repeats ranges that hold "
                                "one another: the compulsory bytes take the widest range (its "
                                "trip count at the end of the outer range where it is widest, "
                                "that loop's own range taken at its widest too: n00529), "
                                "and a triangle inside it its nested sum over that range "
                                "(n00062: -19 % before, exact). Left: a triangle whose loops "
                                "all index the array (do k = j, n; do l = k + 1, n) counts its "
                                "stencil's halo as if the grid were a box (n00092 -1.7 %), "
                                "and short loops over the contiguous axis read as components "
                                "(see order:column).",
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
                      "with multi-dimensional arrays (n00609, n00288: identical). Planes of an "
                      "array read through one (z[ix(2, j, k)]) are rows far apart, each its own "
                      "range in the compulsory bytes, not the span between them (n00161: +27 % "
                      "before, exact). What is left is the scratch tiles' cache levels (see "
                      "scratch-tile), branches, and the rows of a C array read through an index "
                      "function: its declaration is one-dimensional, so no row length is known "
                      "and each row is counted from a line's start and rounded to whole lines "
                      "(n00455: +10 % at every level), where the same nest written with "
                      "multi-dimensional arrays counts its rows from where they start.",
    "time-loop-call": "A call and a sibling nest in one time loop keep their own Loops rows and "
                      "iteration spaces, each repeated by the time loop (n00475: a tiled callee "
                      "beside a 2,000-element sibling, compulsory within 0.1 %). The worst nests "
                      "carry another class: scratch tiles (n00475: L1 +21 %, L2 and L3 +63 %). "
                      "Otherwise as time-loop.",
    "siblings": "As time-loop-call. The nests of a step are taken to share no data: each is "
                "charged its own footprint, and they stay in a level from one step to the next "
                "when all of them fit it together.",
    "offsets": "Plain stencils are exact at the median at every level (the union of the shifted "
               "grids in the compulsory bytes, rows walked back to back sharing their lines). The "
               "worst nests carry another class: a loop that only moves an inner loop's bound "
               "(bounds:triangular-nested), stepped rows at the 512 B L1 (bounds:step).",
    "strided": "Exact: a strided reference moves every line of its range while its stride is "
               "shorter than a line, a line per access once it is not.",
    "bounds:step": "A loop stepping along the contiguous axis costs a line per access and its "
                   "compulsory bytes count the elements it touches: for each remainder of the "
                   "offsets modulo the step, the union of its references over the grid of "
                   "steps, with the arms' probabilities inside if/else (n00036: +18 % before, "
                   "exact). Left: a stepped loop outermost over the contiguous axis, whose "
                   "offsets along it are not counted (n00358 -27 %), and a short stepped loop "
                   "read as component copies (n00365 -7 %, see order:column). A loop stepping "
                   "by 2 or 3 along rows or planes holds each offset's own row once, in the "
                   "working set within pencils and in what one step of an outer X loop "
                   "touches: n01093 (i += 3, seven offsets on five rows) L1 -2 % (was "
                   "+1,571 %). The data a repetition touches still counts each copy of a "
                   "stepped row with the planes of every offset: n00496 moves its data at "
                   "every repetition at the 16 KiB level where it fits (x20).",
    "bounds:tile-constant": "1-D tiles narrower than a line share their lines (exact). Tiles of "
                            "two or three dimensions narrower than a line keep whole lines per "
                            "tile row at L2 and L3 where the level does not hold every whole array "
                            "(median 5 %; L1 median 22 %); a scratch tile's short element "
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
                    "whole array moves each at most once (L2 and L3 median 5 %, p90 37 to "
                    "69 %; L1 median 33 %); "
                    "the tiles' rows narrower than a line still take whole lines per tile where "
                    "the arrays do not all fit.",
    "indirect:sorted": "The compulsory bytes take the expected distinct elements of uniform "
                       "indices (median 0.1 %). The levels take uniform indices too (the source "
                       "does not show the index values; ClusterElems_ gives their locality): at a"
                       " level smaller than the gathered range (the 512 B L1) sorted indices, "
                       "which walk consecutive lines, move fewer lines than charged (L1 median "
                       "+32 %); L2 and L3 within 3 % at the median.",
    "indirect:clustered": "As indirect:sorted: runs of nearby indices share lines the small L1 "
                          "keeps (L1 median +56 %). The compulsory bytes assume uniform "
                          "indices: clustered ones repeat values more often and pick fewer "
                          "distinct elements, a few per cent fewer (median 1 %), which the "
                          "source does not show (the index values are data).",
    "indirect:uniform": "The compulsory bytes and the levels are within 3 % at the median (a "
                        "gather in a called procedure is the calling nest's, n01539). A time "
                        "loop written around the gather reads the same indices again and "
                        "draws nothing new; each pass of one around a call counts its distinct "
                        "elements afresh, as every array (n00191: +5 % before, n00024: -2 %; "
                        "both exact). The worst nests carry another class.",
    "indirect:scatter": "As indirect:sorted for the levels (L1 median +113 %, L2 +22 %); the "
                        "compulsory bytes assume uniform indices, exact at the median for "
                        "uniform and sorted ones, a few per cent high for clustered ones (the "
                        "index values are data).",
    "csr": "The compulsory bytes are within 1 % at the median (the gathered x as the expected "
           "distinct elements, the same indices again on every step of a time loop, n00338: "
           "+8 % before, exact); a row's val and col are one stream at every level (L1 median "
           "14 %); the gathers of x take uniform indices, so sorted and "
           "clustered rows, whose nearby indices share the lines the 512 B L1 keeps, are "
           "charged more lines than they move; L2 and L3 within 2 % at the median.",
    "reduction-lower-rank": "An array reduced into counts the axes it steps along only (exact at "
                            "the median); one of the outer axis alone inside a walk across the "
                            "rows keeps its line at every level. A row is counted in the lines "
                            "from where it starts (the loop's first element and the declared "
                            "row length: rows of 56 doubles from element 4 touch 7 lines, not "
                            "6; n00975: -14 % before, -0.4 % at every level), and a coefficient "
                            "X does not subscript keeps its element along X whatever the order "
                            "of Y and Z (n00032: +13 % before, +1 %). Left: the reduced array's "
                            "own rows along Y are counted in elements, not lines (n01289: -6 %), "
                            "and the worst nests carry another class (stepped rows, loops that "
                            "move an inner loop's bound, a working set just past a level).",
    "row-level": "As reduction-lower-rank.",
    "order:transposed": "Rows walked across (the contiguous axis outermost): at the 512 B L1 a "
                        "line per access; an array of the outer axis alone keeps its line, and "
                        "offsets along the walk reuse the last rows' lines while they fit (L1 "
                        "median 6 %). A row is counted from where it starts in its line (see "
                        "reduction-lower-rank: L3 median 4 -> 1 % on nests 600-1199). "
                        "The X offsets of a row that cross a line are not charged "
                        "(n01095: L1 -8 %). One step of the outer X loop touches the rows its "
                        "pencils reach over the inner loops, each once (n00843: L2 -0.3 %, was "
                        "+2,338 %). Where that just misses a level, the level is charged a line "
                        "per access though an LRU cache keeps part of it (n01218: L2 +576 %); "
                        "n00496 (a tiled, stepped, transposed 3-D stencil called twice from a "
                        "time loop) is charged 20 x at the 16 KiB level where its data fits (see "
                        "bounds:step).",
    "order:column": "A short loop over the contiguous dimension (eight trips or fewer) is read as "
                    "component copies, so the next dimension is taken as the contiguous axis: the "
                    "compulsory bytes count the copies of each point without the offsets along "
                    "those loops (n00023: compulsory -12 %, L1 -80 %). Rows counted from where "
                    "they start in their lines halve the L2 and L3 medians (nests 600-1199: 13 "
                    "and 14 % -> 7 %); the L1 median stays above 20 % on the short loop.",
    "bounds:triangular": "Flops and trips are exact (a step included). Rows of changing range "
                         "touch their mean lines, e + P - 1 elements per row of mean length e (P "
                         "elements a line): median 4 to 8 % at every level. A halo across a "
                         "triangle lengthens each of its columns (n00417: -2 % before, exact); "
                         "a halo along both axes of a triangle, or one over a triangle in a 3-D "
                         "nest with tiles, is still counted on rows of mean length (n00307 -4 %, "
                         "n00013 -2.5 %).",
    "constant-subscript": "Planes read at constant subscripts (z(i, j, 3 - 1)) are pencils of "
                          "their own: with three of them a nest's lines within pencils often "
                          "just exceed the 512 B L1. A window of X offsets straddling a line "
                          "costs a line per access only at the positions where it straddles "
                          "(n01335: L1 +128 %, was +1,101 %; n00209: +17 %, was +413 %); the "
                          "model takes the cache to recover at the next position, an execution "
                          "whose reference order keeps it thrashing moves more (n00192: -19 %).",
    "whole-array": "Exact at the median; the declared shapes of a called procedure's arrays "
                   "(module arrays) now reach the calling time loop, so its rows lie back to back "
                   "there (n00785: exact, was L2 +260 %).",
    "branch": "Flops follow the arms' probabilities (an else runs what its if leaves). The "
              "compulsory bytes count an element that references only inside arms reach from k "
              "iterations with probability 1 - (1 - p)^k, iterations taking arms independently; "
              "the cache levels count each arm's references by its probability, while the cache "
              "keeps the lines either arm touched.",
    "section": "Exact at the median (n01497, a section in a called procedure: exact, was "
               "L2 +227 %).",
}
