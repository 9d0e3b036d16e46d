/* LD_PRELOAD shim: time() always answers the same second, so htsim's srand(time(NULL)) repeats. */
#include <time.h>
time_t time(time_t *t) { if (t) *t = 1700000000; return 1700000000; }
