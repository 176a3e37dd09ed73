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
                 "A step's share of an array is at most the whole array and counts its rows at "
                 "any alignment (n00048: +112 % before, +6 %; n00645: -67 %, -2 %). The worst "
                 "nests carry another class: scratch tiles (n00252), a branch storing to few "
                 "elements of each line (n01722: +54 % at every level), rows walked across "
                 "within a step (n00564, order:transposed). A step that just fits or just misses "
                 "a level is all or nothing in the model, where the simulated LRU keeps part of "
                 "it (n00207: -62 % before, +53 %).",
    "index-function": "Index functions read as the arrays they stand for, a tile's origin and "
                      "element included (ix_a(tj + jj + 1, ti + ii + 1) is a[tj + jj + 1][ti + "
                      "ii + 1]): every nest of the class has the errors of the same nest written "
                      "with multi-dimensional arrays (n00609, n00288: identical). Planes of an "
                      "array read through one (z[ix(2, j, k)]) are rows far apart, each its own "
                      "range in the compulsory bytes, not the span between them (n00161: +27 % "
                      "before, exact), also inside if/else arms, each plane touched with its "
                      "arm's probability (n01236: +29 % before, exact). What is left is the "
                      "scratch tiles' cache levels (see scratch-tile) and branches.",
    "time-loop-call": "A call and a sibling nest in one time loop keep their own Loops rows and "
                      "iteration spaces, each repeated by the time loop (n00475: a tiled callee "
                      "beside a 2,000-element sibling, compulsory within 0.1 %). The worst nests "
                      "carry another class: scratch tiles (n00475: L1 +21 %, L2 and L3 +63 %). "
                      "Otherwise as time-loop.",
    "siblings": "As time-loop-call. The nests of a step are taken to share no data: each is "
                "charged its own footprint (each array at most its whole declared size), and "
                "they stay in a level from one step to the next when all of them fit it "
                "together (n00129: L2 +160 % before, +10 %).",
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
                   "exact). A stepped loop outside the three axes (outermost over the contiguous "
                   "axis, or short and read as component copies) counts the offsets along it "
                   "per remainder too, as a fourth axis of the union (n00358: -27 % before, "
                   "exact; n01190: -3.6 %, exact). Left: n00365 (-7 %, a short stepped loop "
                   "beside a time loop's sibling). A loop stepping "
                   "by 2 or 3 along rows or planes holds each offset's own row once, in the "
                   "working set within pencils and in what one step of an outer X loop "
                   "touches: n01093 (i += 3, seven offsets on five rows) L1 -2 % (was "
                   "+1,571 %). The data a repetition touches still counts each copy of a "
                   "stepped row with the planes of every offset: n00496 moves its data at "
                   "every repetition at the 16 KiB level where it fits (x20).",
    "bounds:tile-constant": "1-D tiles narrower than a line share their lines (exact). A level "
                            "smaller than a copy-and-product tile moves each tile's rows as "
                            "runs starting anywhere in a line (neighbouring rows sharing theirs) "
                            "and the scratch tile again (see scratch-tile). A level holding every "
                            "whole array moves each once, over a time loop's passes too. Left: "
                            "tiles narrower than a line keep whole lines per tile row at a level "
                            "that holds a band of tiles but not the whole arrays (n01027 L2 "
                            "+88 %), and tile loops over a non-contiguous axis or a transposed "
                            "order (n01021, n00496: see order:transposed, bounds:step).",
    "bounds:tile-runtime": "As bounds:tile-constant, with the tile size given by --set.",
    "scratch-tile": "The scratch tile counts once in the compulsory bytes (median 0.2 %). A level "
                    "that holds no whole tile moves each tile's lines: a row of c elements "
                    "starting anywhere in a line spans (c - 1 + P) / P lines, each further row "
                    "MIN(c - 1 + P, L) / P (L the declared row length), and the scratch tile is "
                    "read again by the product unless the level holds it beside the largest "
                    "other tile (n01359 L1 -33 % before, -1 %). A level holding every whole "
                    "array moves each once, over the passes of a time loop too (n00598 L2 "
                    "+600 % before, +5 %). Left: the scratch tile's reuse at the edge of a level "
                    "(4 x 4 tiles of 8-byte elements at the 512 B L1: +24 %, some of its lines "
                    "stay), index functions whose arrays are declared one-dimensional (no row "
                    "length: n01914 L1 +74 %), and tiles narrower than a line sharing lines "
                    "with the next tile at a level holding a band of tiles but not the whole "
                    "arrays (n01027 L2 +88 %).",
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
                            "rows keeps its line at every level. The worst nests carry another "
                            "class (stepped rows, loops that move an inner loop's bound).",
    "row-level": "As reduction-lower-rank.",
    "order:transposed": "Rows walked across (the contiguous axis outermost): at the 512 B L1 a "
                        "line per access; an array of the outer axis alone keeps its line, and "
                        "offsets along the walk reuse the last rows' lines while they fit (L1 "
                        "median 6 %). The X offsets of a row that cross a line are not charged "
                        "(n01095: L1 -8 %). One step of the outer X loop touches the rows its "
                        "pencils reach over the inner loops, each once (n00843: L2 -0.3 %, was "
                        "+2,338 %). Where that just misses a level, the level is charged a line "
                        "per access though an LRU cache keeps part of it (n01218: L2 +576 %); "
                        "n00496 (a tiled, stepped, transposed 3-D stencil called twice from a "
                        "time loop) is charged 20 x at the 16 KiB level where its data fits (see "
                        "bounds:step).",
    "order:column": "A short loop over the contiguous dimension (eight trips or fewer) is read as "
                    "component copies, so the next dimension is taken as the contiguous axis; the "
                    "compulsory bytes count the offsets along such a loop as a fourth axis of "
                    "the union (n00023: -12 % before, exact), the levels still count the copies "
                    "of each point without them (n00023: L1 -80 %). L1 median 11 %, L2 and L3 "
                    "8 to 9 %.",
    "bounds:triangular": "Flops and trips are exact (a step included). Rows of changing range "
                         "touch their mean lines, e + P - 1 elements per row of mean length e (P "
                         "elements a line): median 4 to 8 % at every level. A halo across a "
                         "triangle lengthens each of its columns (n00417: -2 % before, exact); "
                         "a halo along both axes of a triangle, or one over a triangle in a 3-D "
                         "nest with tiles, is still counted on rows of mean length (n00307 -4 %, "
                         "n00013 -2.5 %). A coefficient indexed along a triangle's moving range "
                         "touches its widest range, not the mean one (n00667: -1.7 % before, "
                         "exact).",
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
              "iterations with probability 1 - (1 - p)^k, iterations taking arms independently, "
              "for offsets of any span (planes far apart in an else arm, n01614: +13 % before, "
              "exact); "
              "the cache levels count each arm's references by its probability, while the cache "
              "keeps the lines either arm touched.",
    "section": "Exact at the median (n01497, a section in a called procedure: exact, was "
               "L2 +227 %).",
}
