package dev.allot.sim.generate;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/**
 * A discrete distribution: values with non-negative weights (need not sum to one). Sampling takes one uniform draw.
 *
 * @param <T> the type of the values
 */
public record Weighted<T>(List<T> values, List<Double> weights) {
    public Weighted {
        values = List.copyOf(values);
        weights = List.copyOf(weights);
        if (values.isEmpty() || values.size() != weights.size()) {
            throw new IllegalArgumentException("a weighted choice needs as many weights as values, and at least one");
        }
        double total = 0;
        for (double w : weights) {
            if (!(w >= 0) || Double.isInfinite(w)) {
                throw new IllegalArgumentException("weights must be finite and >= 0, got " + w);
            }
            total += w;
        }
        if (!(total > 0)) {
            throw new IllegalArgumentException("at least one weight must be positive");
        }
    }

    /** A choice that always gives {@code value}. */
    public static <T> Weighted<T> only(T value) {
        return new Weighted<>(List.of(value), List.of(1.0));
    }

    /** Starts a choice with its first value and weight; add more with {@link Builder#or}. */
    public static <T> Builder<T> of(T value, double weight) {
        return new Builder<T>().or(value, weight);
    }

    public double totalWeight() {
        double total = 0;
        for (double w : weights) {
            total += w;
        }
        return total;
    }

    /** The probability of the i-th value. */
    public double probability(int i) {
        return weights.get(i) / totalWeight();
    }

    public T sample(SplittableRandom rng) {
        double u = rng.nextDouble() * totalWeight();
        for (int i = 0; i < values.size(); i++) {
            u -= weights.get(i);
            if (u < 0) {
                return values.get(i);
            }
        }
        // rounding left u at (or just above) zero: the last value with a positive weight
        for (int i = values.size() - 1; ; i--) {
            if (weights.get(i) > 0) {
                return values.get(i);
            }
        }
    }

    /** The expectation of {@code f} over this distribution. */
    public double mean(ToDoubleFunction<T> f) {
        double sum = 0;
        for (int i = 0; i < values.size(); i++) {
            sum += weights.get(i) * f.applyAsDouble(values.get(i));
        }
        return sum / totalWeight();
    }

    /** Collects values and weights in order. */
    public static final class Builder<T> {
        private final List<T> values = new ArrayList<>();
        private final List<Double> weights = new ArrayList<>();

        public Builder<T> or(T value, double weight) {
            values.add(Objects.requireNonNull(value, "value"));
            weights.add(weight);
            return this;
        }

        public Weighted<T> build() {
            return new Weighted<>(values, weights);
        }
    }
}
