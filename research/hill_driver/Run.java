package hilldriver;

import java.lang.management.ManagementFactory;
import java.util.Random;
import minesweeper.settings.GameSettings;
import minesweeper.settings.GameType;
import minesweeper.solver.bulk.BulkEventGame;
import minesweeper.solver.bulk.BulkPlayer;
import minesweeper.solver.settings.PlayStyle;
import minesweeper.solver.settings.SettingsFactory;
import minesweeper.solver.settings.SettingsFactory.Setting;
import minesweeper.solver.settings.SolverSettings;
import minesweeper.structure.Location;

/**
 * David Hill's Java solver (DavidNHill/Minesweeper, compiled from a checkout by research/bench_hill.py;
 * none of its code is kept here) playing expert games through its own bulk runner on one thread, no
 * flags, its SMALL_ANALYSIS settings. Args: warm-up games, counted games, start ("opening": a zero at
 * (3,3); "safe": a safe (0,0)), seed. The warm-up games let the JIT compile; then the counted games
 * print "COUNTED games wins cpu-seconds", CPU of the whole JVM (every thread: the JIT's and the
 * collector's too).
 */
public class Run {
    static long[] play(int games, String start, long seed, com.sun.management.OperatingSystemMXBean os) {
        SolverSettings settings = SettingsFactory.GetSettings(Setting.SMALL_ANALYSIS);
        settings.setSingleThread(true);
        boolean opening = start.equals("opening");
        settings.setStartLocation(opening ? new Location(3, 3) : new Location(0, 0));
        BulkPlayer p = new BulkPlayer(new Random(seed), games, opening ? GameType.EASY : GameType.STANDARD,
            GameSettings.EXPERT, settings, 1, 1000);
        p.setPlayStyle(PlayStyle.NO_FLAG);
        long c0 = os.getProcessCpuTime();
        p.run();
        long c1 = os.getProcessCpuTime();
        BulkEventGame e = p.getResults().getGameEvents()[0];
        return new long[] {e.getGamesPlayed(), e.getGamesWon(), c1 - c0};
    }

    public static void main(String[] args) {
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long seed = Long.parseLong(args[3]);
        play(Integer.parseInt(args[0]), args[2], seed + 1, os);
        long[] r = play(Integer.parseInt(args[1]), args[2], seed, os);
        System.out.printf("COUNTED %d %d %.6f%n", r[0], r[1], r[2] / 1e9);
        System.exit(0);
    }
}
