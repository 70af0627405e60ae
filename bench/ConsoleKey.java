import java.awt.Robot;
import java.awt.event.KeyEvent;

/**
 * Presses one key in the X display of $DISPLAY, as an operator would on the console's window (bench/console-idle-cpu.sh
 * with ACTION=1: F6, "Run a tick now", an operator action). Run as a single source file: java bench/ConsoleKey.java F6
 */
public class ConsoleKey {
    public static void main(String[] args) throws Exception {
        int key = KeyEvent.class.getField("VK_" + args[0]).getInt(null);
        Robot robot = new Robot();
        robot.setAutoDelay(50);
        robot.keyPress(key);
        robot.keyRelease(key);
        robot.waitForIdle();
    }
}
