package com.github.kgjudge.neo4jlauncher;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.io.ByteUnit;

/**
 * Starts an embedded Neo4j Community DBMS with Bolt on 127.0.0.1:PORT, auth
 * disabled, no HTTP/HTTPS, for tests and CI.
 *
 * <p>Prints exactly one line {@code NEO4J READY bolt://127.0.0.1:PORT} on
 * stdout once the default database answers and the Bolt port accepts TCP,
 * then runs until SIGTERM/SIGINT (or stdin EOF with {@code --watch-stdin}).
 *
 * <pre>
 * Usage: Neo4jLauncher [--port N] [--host H] [--data DIR] [--pagecache SIZE_MB]
 *                      [--config neo4j.conf] [--watch-stdin]
 * Env:   NEO4J_PORT, NEO4J_DATA_DIR (used when the flags are absent)
 * </pre>
 *
 * Without --data a fresh temporary directory is used and deleted on exit.
 */
public final class Neo4jLauncher {

    private static final PrintStream OUT = System.out;

    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = envInt("NEO4J_PORT", BoltConnector.DEFAULT_PORT);
        String dataArg = System.getenv("NEO4J_DATA_DIR");
        long pagecacheMb = 64;
        Path configFile = null;
        boolean watchStdin = false;

        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--port" -> port = Integer.parseInt(need(args, ++i, a));
                case "--host" -> host = need(args, ++i, a);
                case "--data" -> dataArg = need(args, ++i, a);
                case "--pagecache" -> pagecacheMb = Long.parseLong(need(args, ++i, a));
                case "--config" -> configFile = Path.of(need(args, ++i, a));
                case "--watch-stdin" -> watchStdin = true;
                case "-h", "--help" -> {
                    OUT.println("usage: Neo4jLauncher [--port N] [--host H] [--data DIR] "
                            + "[--pagecache MB] [--config FILE] [--watch-stdin]");
                    return;
                }
                default -> {
                    if (a.matches("\\d+")) { // bare port number
                        port = Integer.parseInt(a);
                    } else {
                        die("unknown argument: " + a);
                    }
                }
            }
        }
        if (port < 1 || port > 65535) {
            die("bad port: " + port);
        }

        final boolean tempDir = dataArg == null || dataArg.isBlank();
        final Path home = tempDir
                ? Files.createTempDirectory("kgjudge-neo4j-")
                : Files.createDirectories(Path.of(dataArg).toAbsolutePath());

        if (isListening(host, port, 200)) {
            die("port " + host + ":" + port + " is already in use");
        }

        log("starting Neo4j (home " + home + ", bolt " + host + ":" + port + ")");
        long t0 = System.nanoTime();

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home);
        if (configFile != null) {
            builder.loadPropertiesFromFile(configFile);
        }
        builder
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                // No file access from Cypher: with auth off, any client could
                // otherwise read the host's files with a read query
                // (LOAD CSV FROM 'file:///etc/passwd'). Set after the config
                // file, so that no config file turns it back on.
                .setConfig(GraphDatabaseSettings.allow_file_urls, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecacheMb))
                // Small footprint: no 256 MB tx-log preallocation, small log files.
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(16))
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "1 files")
                .setConfig(GraphDatabaseSettings.pagecache_warmup_enabled, false)
                // Fast stop: Bolt otherwise waits 5 s + 5 s for idle threads/connections.
                .setConfig(BoltConnectorInternalSettings.enable_local_connector, false)
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(500))
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(500));

        final DatabaseManagementService dbms = builder.build();
        final CountDownLatch stopped = new CountDownLatch(1);
        final AtomicBoolean shuttingDown = new AtomicBoolean(false);
        Runnable shutdown = () -> {
            if (!shuttingDown.compareAndSet(false, true)) {
                return;
            }
            log("shutting down");
            try {
                dbms.shutdown();
            } catch (Throwable t) {
                log("shutdown error: " + t);
            }
            if (tempDir) {
                deleteTree(home);
            }
            log("stopped");
            stopped.countDown();
        };
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown, "neo4j-launcher-shutdown"));

        try {
            // Wait until the default database answers a query...
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (true) {
                try (Transaction tx = db.beginTx(); Result r = tx.execute("RETURN 1 AS one")) {
                    r.resultAsString();
                    tx.commit();
                    break;
                } catch (RuntimeException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
            // ...and the Bolt port accepts TCP connections.
            while (!isListening(host, port, 500)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Bolt did not start listening on " + host + ":" + port);
                }
                Thread.sleep(100);
            }
        } catch (Throwable t) {
            log("startup failed: " + t);
            t.printStackTrace(System.err);
            shutdown.run();
            System.exit(1);
        }

        log(String.format("ready after %.1f s", (System.nanoTime() - t0) / 1e9));
        String uriHost = host.contains(":") ? "[" + host + "]" : host;
        OUT.println("NEO4J READY bolt://" + uriHost + ":" + port);
        OUT.flush();

        if (watchStdin) {
            Thread t = new Thread(() -> {
                try {
                    InputStream in = System.in;
                    byte[] buf = new byte[256];
                    while (in.read(buf) >= 0) {
                        // discard
                    }
                } catch (IOException ignored) {
                    // treat as EOF
                }
                log("stdin closed");
                System.exit(0); // runs the shutdown hook
            }, "neo4j-launcher-stdin");
            t.setDaemon(true);
            t.start();
        }

        stopped.await(); // released by the shutdown hook
    }

    private static boolean isListening(String host, int port, int timeoutMs) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), timeoutMs);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteTree(Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            log("could not delete " + root + ": " + e);
        }
    }

    private static int envInt(String name, int dflt) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            die(name + " is not a number: " + v);
            return dflt;
        }
    }

    private static String need(String[] args, int i, String flag) {
        if (i >= args.length) {
            die(flag + " needs a value");
        }
        return args[i];
    }

    private static void log(String msg) {
        System.err.println("[neo4j-launcher] " + msg);
        System.err.flush();
    }

    private static void die(String msg) {
        log(msg);
        System.exit(2);
    }
}
