package dev.sovereign.console.shell;

import atlantafx.base.theme.Styles;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.PasswordField;
import javafx.scene.control.TextField;
import javafx.scene.layout.VBox;
import javafx.stage.Window;

/**
 * File → Open server: a PostgreSQL JDBC URL and, optionally, a password in a masked field of its own (decision
 * 0423). The password goes into the URL handed to the driver for this session only; the console shows and
 * remembers the URL without it. Left empty, the driver finds the password in {@code ~/.pgpass} or the file
 * {@code PGPASSFILE} names.
 */
final class ServerDialog {
    static final String HINT = "jdbc:postgresql://host:5432/ledger?user=alice&sslmode=verify-full";

    private ServerDialog() {}

    /** Asks for a server; the URL to open (with the password typed, if any), or empty when cancelled. */
    static Optional<String> ask(Window owner) {
        Dialog<String> dialog = new Dialog<>();
        dialog.initOwner(owner);
        dialog.setTitle("Open a Sovereign ledger on a server");
        TextField url = new TextField();
        url.setId("server-url");
        url.setPromptText(HINT);
        url.setPrefColumnCount(48);
        PasswordField password = new PasswordField();
        password.setId("server-password");
        password.setPromptText("password (optional)");
        Label note = new Label("Leave the password out to use ~/.pgpass or PGPASSFILE. A password typed here is used"
                + " for this session only: it is never shown, logged or remembered.");
        note.setWrapText(true);
        note.setMaxWidth(520);
        note.getStyleClass().add(Styles.TEXT_SUBTLE);
        dialog.getDialogPane()
                .setContent(new VBox(8, new Label("Server URL"), url, new Label("Password"), password, note));
        dialog.getDialogPane().getButtonTypes().addAll(ButtonType.OK, ButtonType.CANCEL);
        dialog.getDialogPane()
                .lookupButton(ButtonType.OK)
                .disableProperty()
                .bind(url.textProperty().isEmpty());
        dialog.setResultConverter(
                b -> b == ButtonType.OK ? withPassword(url.getText().strip(), password.getText()) : null);
        url.requestFocus();
        Optional<String> result = dialog.showAndWait();
        password.clear();
        return result;
    }

    /** {@code url} with {@code password} as its {@code password} parameter (URL-encoded, as the driver decodes it). */
    static String withPassword(String url, String password) {
        if (password == null || password.isEmpty()) {
            return url;
        }
        return url + (url.contains("?") ? "&" : "?") + "password="
                + URLEncoder.encode(password, StandardCharsets.UTF_8);
    }
}
