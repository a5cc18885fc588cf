package io.files2iceberg.batcher.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How every command reports an error: {@code error: <message>} on stderr, one style for usage,
 * configuration and runtime failures (stdout keeps the command's output, JSON included).
 *
 * <pre>
 * error: unknown option '--confg'; did you mean '--config'?
 * error: files2iceberg batch needs a command: run-once or serve
 * error: 2 problem(s) in profiles/:
 *   profiles/clicks.conf: extract.max-batch-sise: unknown key; did you mean 'max-batch-size'?
 * </pre>
 *
 * <p>A usage error exits {@link ExitCode#INVALID}, followed by the command's usage unless
 * the line already says what was probably meant; a failure while running exits {@link
 * ExitCode#FAILED}.
 */
public final class ErrorOutput {
  /** What every error line starts with. */
  public static final String PREFIX = "error: ";

  private ErrorOutput() {}

  /** {@code error: <message>}, flushed; a message starting with a capitalised word ("Cannot ...") is lowered. */
  public static void print(PrintWriter err, String message) {
    err.println(PREFIX + sentence(message));
    err.flush();
  }

  /** The usage error of a command group run without one of its commands. */
  public static ParameterException missingCommand(CommandSpec group) {
    List<String> names = group.subcommands().keySet().stream().filter(name -> !name.equals("help")).toList();
    String choices = names.size() == 1 ? names.get(0)
        : String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    return new ParameterException(group.commandLine(), group.qualifiedName() + " needs a command: " + choices);
  }

  /** picocli's handler of usage errors ({@link CommandLine#setParameterExceptionHandler}). */
  static int usageError(ParameterException error, String[] args) {
    CommandLine command = error.getCommandLine();
    PrintWriter err = command.getErr();
    // picocli checks required options before it reports unknown arguments: a misspelt required
    // option (--confg for --config) would be reported as missing, the name typed nowhere.
    List<String> unmatched = command.getUnmatchedArguments();
    List<String> suggestions = List.of();
    String message;
    if (unmatched.isEmpty()) {
      message = error.getMessage();
    } else {
      List<String> options = unmatched.stream().filter(arg -> arg.startsWith("-"))
          .map(arg -> arg.split("=", 2)[0]).distinct().toList();
      if (!command.getSubcommands().isEmpty() && !unmatched.get(0).startsWith("-")) {
        // What follows a mistyped command is that command's.
        message = "unknown command " + quoted(unmatched.subList(0, 1));
        // Ranked by similarity: the first is the likeliest.
        suggestions = new UnmatchedArgumentException(command, unmatched.subList(0, 1)).getSuggestions().stream()
            .limit(1).toList();
      } else if (!options.isEmpty()) {
        message = (options.size() == 1 ? "unknown option " : "unknown options ") + quoted(options);
        suggestions = new UnmatchedArgumentException(command, List.of(options.get(0))).getSuggestions();
      } else {
        message = (unmatched.size() == 1 ? "unexpected argument " : "unexpected arguments ") + quoted(unmatched);
      }
    }
    if (suggestions.isEmpty()) {
      print(err, message);
      command.usage(err, command.getColorScheme());
    } else {
      print(err, message + "; did you mean " + quoted(suggestions).replace("', '", "' or '") + "?");
    }
    err.flush();
    return ExitCode.INVALID;
  }

  /** picocli's handler of what a command throws ({@link CommandLine#setExecutionExceptionHandler}). */
  static int failure(Exception error, CommandLine command, ParseResult parseResult) {
    print(command.getErr(), error.getMessage() == null ? error.toString() : error.getMessage());
    return ExitCode.FAILED;
  }

  /** Exceptions' and picocli's messages start with a capital ("Missing required option"); error lines do not. */
  private static String sentence(String message) {
    if (message == null) {
      return "(no message)";
    }
    if (message.startsWith("Error: ")) {
      message = message.substring("Error: ".length()); // picocli's, for argument groups
    }
    if (message.length() > 1 && Character.isUpperCase(message.charAt(0)) && Character.isLowerCase(message.charAt(1))) {
      return Character.toLowerCase(message.charAt(0)) + message.substring(1);
    }
    return message;
  }

  private static String quoted(List<String> values) {
    return values.stream().map(value -> "'" + value + "'").collect(Collectors.joining(", "));
  }
}
