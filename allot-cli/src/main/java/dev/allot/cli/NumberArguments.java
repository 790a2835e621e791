package dev.allot.cli;

import dev.allot.core.rules.TypedNumbers;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * How the command line reads a number-typed option or parameter ({@code --gpus 8}, {@code --share 2.5}, progress's
 * {@code DONE}): picocli's own converters refuse a bad value in Java's words ("'x' is not an int", "is not a long",
 * "is not a double"); these say what was expected, as every other error of the command line does
 * ("expected a whole number, got 'x'"). picocli puts the option's name in front.
 */
final class NumberArguments {
    private NumberArguments() {
    }

    /** Registers the converters on {@code cl} and every command below it. */
    static void register(CommandLine cl) {
        ITypeConverter<Integer> ints = s -> (int) whole(s, Integer.MIN_VALUE, Integer.MAX_VALUE);
        ITypeConverter<Long> longs = s -> whole(s, Long.MIN_VALUE, Long.MAX_VALUE);
        ITypeConverter<Double> doubles = NumberArguments::number;
        cl.registerConverter(Integer.class, ints).registerConverter(int.class, ints)
                .registerConverter(Long.class, longs).registerConverter(long.class, longs)
                .registerConverter(Double.class, doubles).registerConverter(double.class, doubles);
    }

    static long whole(String text, long min, long max) {
        String t = text.strip();
        if (!t.matches("[-+]?\\d+")) {
            throw new TypeConversionException("expected a whole number, got '" + text + "'");
        }
        boolean negative = t.startsWith("-");
        try {
            long v = Long.parseLong(t);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException tooLong) {
            // out of range below
        }
        // Only the side it is beyond: "from -2147483648 to 2147483647" told a user asking for 99999999999 GPUs that a
        // negative count would do. What the option accepts within the type is the server's rule, said with its field.
        throw new TypeConversionException("expected a whole number " + (negative ? "of at least " + min
                : "of at most " + max) + ", got '" + text + "'");
    }

    /**
     * A number kept as it was typed, for an option whose rule must name the value as typed ({@code --share 1e400}:
     * the double it parses to is Infinity); what is no number at all is refused here as by the other converters.
     */
    static final class NumberText implements ITypeConverter<String> {
        @Override
        public String convert(String text) {
            parsed(text);
            return text;
        }
    }

    /** A number-typed option's value: a finite number ({@code 1e400} read as Infinity and ran with it). */
    static double number(String text) {
        double d = parsed(text);
        if (!Double.isFinite(d)) {
            throw new TypeConversionException("expected " + TypedNumbers.FINITE + ", got " + TypedNumbers.shown(text));
        }
        return d;
    }

    private static double parsed(String text) {
        try {
            return Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("expected a number, got '" + text + "'");
        }
    }

    /**
     * The value of an option that takes a number or none ({@code --max-gpu-hours H|none}), given and not none, as the
     * finite number it reads as, written as typed ({@code -1}, not {@code -1.0}); else refused naming the option, what it expects and the value as typed: 1e400 read
     * as Infinity and went to the server as the string "Infinity", which its error then named.
     */
    static java.math.BigDecimal finite(String option, String text, String expected) {
        double d = TypedNumbers.finite(text).orElseThrow(() -> new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT,
                option + ": expected " + expected + ", got " + TypedNumbers.shown(text)));
        // sent as typed, so that the server's range error names it so: -1 as a double went as -1.0, "got -1.0"
        try {
            return new java.math.BigDecimal(text.strip());
        } catch (NumberFormatException e) {
            return java.math.BigDecimal.valueOf(d); // what Java reads and a JSON number does not write: 0x1p3, 2d
        }
    }
}
