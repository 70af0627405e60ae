import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;
import javafx.stage.Stage;

/**
 * The toolkit's own idle cost, the floor bench/console-idle-cpu.sh measures beside the console: a JavaFX window of the
 * console's size with a label and an empty table, nothing changing, on the same JVM options. Run as a single source
 * file with the console's jar on the class path (it holds JavaFX): java -cp CONSOLE_JAR bench/FxFloor.java
 */
public class FxFloor {
    public static void main(String[] args) {
        Application.launch(App.class, args);
    }

    public static class App extends Application {
        @Override
        public void start(Stage stage) {
            BorderPane root = new BorderPane(new TableView<String>(), new Label("idle"), null, null, null);
            stage.setTitle("toolkit floor");
            stage.setScene(new Scene(root, 1320, 820));
            stage.show();
        }
    }
}
