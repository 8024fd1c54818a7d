/* Times Simon Tatham's no-guess mine layout for benchmarks/bench_noguess.py --tatham DIR.
 *
 * Built against Tatham's own source, never kept here: gcc -O2 -I DIR driver.c stubs.c DIR/misc.c
 * DIR/random.c DIR/tree234.c DIR/malloc.c -lm (mines.c is included, so its static minegen can be
 * called). Usage: driver W H MINES X Y BOARDS [FIRST [layouts]]; boards FIRST.. (default 0) are
 * seeded "sweeplab-<i>"; one line per board: CPU ms of minegen, mines laid and, with `layouts`, the
 * layout row by row ('1' a mine, '0' not).
 */
#include "mines.c"
#include <time.h>

int main(int argc, char **argv)
{
    bool layouts = argc == 9 && strcmp(argv[8], "layouts") == 0;
    if (argc < 7 || argc > 9 || (argc == 9 && !layouts)) {
        fprintf(stderr, "usage: %s W H MINES X Y BOARDS [FIRST [layouts]]\n", argv[0]);
        return 2;
    }
    int w = atoi(argv[1]), h = atoi(argv[2]), n = atoi(argv[3]), x = atoi(argv[4]), y = atoi(argv[5]);
    int boards = atoi(argv[6]), first = argc >= 8 ? atoi(argv[7]) : 0;
    for (int i = first; i < first + boards; i++) {
        char seed[32];
        int len = sprintf(seed, "sweeplab-%d", i);
        random_state *rs = random_new(seed, len);
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        bool *grid = minegen(w, h, n, x, y, true, rs);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        int m = 0;
        for (int k = 0; k < w * h; k++)
            m += grid[k];
        printf("%.6f %d", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6, m);
        if (layouts) {
            putchar(' ');
            for (int k = 0; k < w * h; k++)
                putchar(grid[k] ? '1' : '0');
        }
        putchar('\n');
        sfree(grid);
        random_free(rs);
    }
    return 0;
}
