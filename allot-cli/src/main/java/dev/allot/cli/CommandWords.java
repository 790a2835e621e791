package dev.allot.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one client-side rule for a workload's command words: the program is run without a shell, so a command whose
 * program is one word with blanks ({@code -- "sleep 1"}, or {@code command: ["python eval.py", ...]} in a campaign
 * file) names a program ({@code sleep 1}) that no node has, and would fail there with "command not found" after
 * waiting in the queue. A program whose path holds a blank ({@code "/opt/My Tools/run"}) is a real program: a first
 * word that exists as a file here is taken as it is (the nodes see the same paths on a shared file system; a program
 * that exists only there can be run as {@code env "/opt/My Tools/run"}).
 */
final class CommandWords {
    /** Characters that mean a command line was written for a shell: pipes, lists, redirections, quotes, globs. */
    private static final String SHELL_SYNTAX = "|&;<>()$`\\\"'*?";

    private CommandWords() {
    }

    /**
     * Why {@code command} cannot be what was meant, with the fix: the words apart as {@code asWritten} writes a
     * command (on a command line, in a file), or empty when its program is one word.
     */
    static Optional<String> problem(List<String> command, Function<List<String>, String> asWritten) {
        if (command == null || command.isEmpty() || command.get(0) == null) {
            return Optional.empty();
        }
        String program = command.get(0);
        if (program.chars().noneMatch(Character::isWhitespace) || existsAsFile(program)) {
            return Optional.empty();
        }
        List<String> words = new ArrayList<>(List.of(program.strip().split("\\s+")));
        words.addAll(command.subList(1, command.size()));
        return Optional.of("the " + (command.size() == 1 ? "command" : "program") + " is one word with blanks, "
                + ShellWords.quote(program) + ": give its words apart, as: " + asWritten.apply(words)
                + (program.chars().anyMatch(c -> SHELL_SYNTAX.indexOf(c) >= 0)
                        ? "; or, for shell syntax, give a shell the text: " + asWritten.apply(List.of("sh", "-c", program))
                        : "")
                + " (the command is run without a shell; a program path with blanks is taken when that file exists here)");
    }

    /** A command as typed after {@code allot submit ... --}: each word quoted for the shell where it needs it. */
    static String onCommandLine(List<String> words) {
        List<String> quoted = new ArrayList<>();
        for (String w : words) {
            quoted.add(ShellWords.quote(w));
        }
        return "allot submit ... -- " + String.join(" ", quoted);
    }

    private static boolean existsAsFile(String word) {
        try {
            return java.nio.file.Files.isRegularFile(java.nio.file.Path.of(word));
        } catch (java.nio.file.InvalidPathException e) {
            return false;
        }
    }
}
