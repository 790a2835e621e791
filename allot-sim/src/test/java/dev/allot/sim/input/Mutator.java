package dev.allot.sim.input;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded text mutations for fuzz tests of every input reader: characters deleted, inserted or replaced, tokens
 * that trouble parsers inserted, lines duplicated, dropped or swapped, the text truncated.
 */
public final class Mutator {
    private static final String ALPHABET = " \n\t:-,#\"'{}[]&*!|>%@`?0123456789abdhmsxyzTZ.+_\\/é\r";
    private static final String[] TOKENS = {"-1", "0", "999999999999999999999", "null", "~", "*a", "&a ", "!!int ",
        "{}", "[]", "\"", "0x1F", "1e999", ".nan", "2026-01-05T00:00:00Z", "1969-12-31T23:59:59Z", "1h30m", "---\n",
        "? ", "NaN", "\u0000", "\uFEFF", "true", ": ", "- ", "\n  ", "gpu-01", "nlp", ",,", "{\"id\": 1}"};

    private Mutator() {
    }

    /** One to four mutations of {@code text}, chosen by {@code r}. */
    public static String mutate(SplittableRandom r, String text) {
        String s = text;
        int ops = 1 + r.nextInt(4);
        for (int i = 0; i < ops; i++) {
            s = switch (r.nextInt(8)) {
                case 0 -> deleteChars(r, s);
                case 1 -> insert(r, s, String.valueOf(ALPHABET.charAt(r.nextInt(ALPHABET.length()))));
                case 2 -> replaceChar(r, s);
                case 3 -> insert(r, s, TOKENS[r.nextInt(TOKENS.length)]);
                case 4 -> duplicateLine(r, s);
                case 5 -> dropLine(r, s);
                case 6 -> swapLines(r, s);
                default -> s.substring(0, r.nextInt(s.length() + 1));
            };
        }
        return s;
    }

    private static String deleteChars(SplittableRandom r, String s) {
        if (s.isEmpty()) {
            return s;
        }
        int at = r.nextInt(s.length());
        int end = Math.min(s.length(), at + 1 + r.nextInt(3));
        return s.substring(0, at) + s.substring(end);
    }

    private static String insert(SplittableRandom r, String s, String what) {
        int at = r.nextInt(s.length() + 1);
        return s.substring(0, at) + what + s.substring(at);
    }

    private static String replaceChar(SplittableRandom r, String s) {
        if (s.isEmpty()) {
            return s;
        }
        int at = r.nextInt(s.length());
        return s.substring(0, at) + ALPHABET.charAt(r.nextInt(ALPHABET.length())) + s.substring(at + 1);
    }

    private static List<String> lines(String s) {
        return new ArrayList<>(Arrays.asList(s.split("\n", -1)));
    }

    private static String duplicateLine(SplittableRandom r, String s) {
        List<String> lines = lines(s);
        int at = r.nextInt(lines.size());
        lines.add(at, lines.get(at));
        return String.join("\n", lines);
    }

    private static String dropLine(SplittableRandom r, String s) {
        List<String> lines = lines(s);
        lines.remove(r.nextInt(lines.size()));
        return String.join("\n", lines);
    }

    private static String swapLines(SplittableRandom r, String s) {
        List<String> lines = lines(s);
        int a = r.nextInt(lines.size());
        int b = r.nextInt(lines.size());
        String t = lines.get(a);
        lines.set(a, lines.get(b));
        lines.set(b, t);
        return String.join("\n", lines);
    }
}
