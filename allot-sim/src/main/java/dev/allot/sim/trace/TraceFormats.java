package dev.allot.sim.trace;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The trace formats known by name. Not a singleton: {@link #standard()} builds a fresh registry of the built-in
 * formats, and tests or embedders may build their own with {@link #of}.
 */
public final class TraceFormats {
    private final Map<String, TraceFormat> byName = new LinkedHashMap<>();

    private TraceFormats(List<TraceFormat> formats) {
        for (TraceFormat f : formats) {
            if (byName.put(f.name(), f) != null) {
                throw new IllegalArgumentException("trace format '" + f.name() + "' is registered twice");
            }
        }
    }

    public static TraceFormats of(TraceFormat... formats) {
        return new TraceFormats(List.of(formats));
    }

    /** philly, alibaba-openb, swf, tiresias and native. */
    public static TraceFormats standard() {
        return of(new PhillyFormat(), new AlibabaOpenbFormat(), new SwfFormat(), new TiresiasFormat(),
                new NativeFormat());
    }

    /** The format with this name; an unknown name is an error that lists the valid ones. */
    public TraceFormat get(String name) {
        TraceFormat f = byName.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown trace format '" + name + "'; valid formats: "
                    + String.join(", ", names()));
        }
        return f;
    }

    public List<String> names() {
        return new ArrayList<>(byName.keySet());
    }

    public List<TraceFormat> all() {
        return new ArrayList<>(byName.values());
    }
}
