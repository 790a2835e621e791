package dev.allot.server.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The small files a running service leaves in its data directory for clients and tests to find it. */
public final class ServiceFiles {
    /** Where a running service says where it listens. */
    public static final String SERVICE_JSON = "service.json";

    private ServiceFiles() {
    }

    /** Writes {@code service.json} atomically (temp file, then rename). */
    public static void writeServiceJson(Path dataDir, String url, int port, long pid) {
        String json = "{\"url\":\"" + url + "\",\"port\":" + port + ",\"pid\":" + pid + "}\n";
        try {
            Path tmp = dataDir.resolve(SERVICE_JSON + ".tmp");
            Files.writeString(tmp, json, StandardCharsets.UTF_8);
            Files.move(tmp, dataDir.resolve(SERVICE_JSON), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dataDir.resolve(SERVICE_JSON), e);
        }
    }
}
