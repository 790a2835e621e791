package dev.allot.server.service;

import dev.allot.server.OwnerOnlyFiles;
import java.nio.file.Path;

/** The small files a running service leaves in its data directory for clients and tests to find it. */
public final class ServiceFiles {
    /** Where a running service says where it listens. */
    public static final String SERVICE_JSON = "service.json";

    private ServiceFiles() {
    }

    /** Writes {@code service.json} atomically (temp file, then rename), readable by the service's user only. */
    public static void writeServiceJson(Path dataDir, String url, int port, long pid) {
        String json = "{\"url\":\"" + url + "\",\"port\":" + port + ",\"pid\":" + pid + "}\n";
        OwnerOnlyFiles.write(dataDir.resolve(SERVICE_JSON), json);
    }
}
