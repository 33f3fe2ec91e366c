/*
 * remove_tree.h — what the engine's C test programs (orcore_tests,
 * orcore_faults, the fuzz targets) share: removing the scratch directory a
 * run made.
 */
#ifndef ORC_TEST_REMOVE_TREE_H
#define ORC_TEST_REMOVE_TREE_H

/** Removes `dir` and everything below it (links are removed, not followed); quietly does what it can. */
void remove_tree(const char *dir);

#endif
