package dev.allot.slurm;

import java.util.ArrayList;
import java.util.List;

/** Slurm's compressed host lists ({@code n[1-3,7],gpu-a05}) expanded and joined. */
public final class HostList {
    private HostList() {
    }

    /**
     * Expands a host list. Ranges keep their zero padding ({@code n[08-10]} is n08, n09, n10).
     *
     * @throws IllegalArgumentException naming the list and the place that is not a host list
     */
    public static List<String> expand(String list) {
        return expand(list, list);
    }

    /** Expands {@code list}, a part of {@code whole} (the suffix after a range), naming {@code whole} in errors. */
    private static List<String> expand(String whole, String list) {
        List<String> out = new ArrayList<>();
        if (list == null || list.isBlank() || list.equals("(null)")) {
            return out;
        }
        int i = 0;
        int n = list.length();
        while (i < n) {
            int start = i;
            int depth = 0;
            while (i < n && (depth > 0 || list.charAt(i) != ',')) {
                char c = list.charAt(i);
                if (c == '[') {
                    depth++;
                } else if (c == ']') {
                    depth--;
                }
                if (depth < 0) {
                    throw new IllegalArgumentException("host list '" + whole + "': a ']' without '[' at " + i);
                }
                i++;
            }
            if (depth != 0) {
                throw new IllegalArgumentException("host list '" + whole + "': an unclosed '[' at " + start);
            }
            expandOne(whole, list.substring(start, i), out);
            i++; // the comma
        }
        return out;
    }

    private static void expandOne(String list, String host, List<String> out) {
        int open = host.indexOf('[');
        if (open < 0) {
            if (host.isEmpty() || host.indexOf(']') >= 0) {
                throw new IllegalArgumentException("host list '" + list + "': '" + host + "' is not a host name");
            }
            out.add(host);
            return;
        }
        int close = host.indexOf(']', open);
        String prefix = host.substring(0, open);
        String suffix = host.substring(close + 1);
        for (String part : host.substring(open + 1, close).split(",", -1)) {
            String[] range = part.split("-", -1);
            if (range.length > 2 || range[0].isEmpty() || !range[0].chars().allMatch(Character::isDigit)
                    || (range.length == 2 && (range[1].isEmpty() || !range[1].chars().allMatch(Character::isDigit)))) {
                throw new IllegalArgumentException("host list '" + list + "': '" + part
                        + "' is not a number or a range such as 1-4");
            }
            long from = Long.parseLong(range[0]);
            long to = range.length == 2 ? Long.parseLong(range[1]) : from;
            if (to < from || to - from > 100_000) {
                throw new IllegalArgumentException("host list '" + list + "': range '" + part + "' runs backwards or"
                        + " is too long");
            }
            int width = range[0].length();
            for (long k = from; k <= to; k++) {
                String num = String.format("%0" + width + "d", k);
                for (String rest : suffix.isEmpty() ? List.of("") : expand(list, suffix)) {
                    out.add(prefix + num + rest);
                }
            }
        }
    }
}
