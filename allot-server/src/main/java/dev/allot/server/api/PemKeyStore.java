package dev.allot.server.api;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API's TLS material as a JDK {@link KeyStore}, built from the two PEM files an operator has (a certificate chain
 * and its private key), with the JDK alone: {@link CertificateFactory} for the chain, {@link PKCS8EncodedKeySpec} for
 * the key. Keys: PKCS#8 ({@code BEGIN PRIVATE KEY}) RSA or EC, and PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY}, wrapped
 * into PKCS#8 here). Anything else (an encrypted key, SEC1 EC, a key that does not belong to the certificate) is a
 * {@link BadPem} naming the file and what was expected, so {@code allot serve} refuses before it creates anything.
 */
public final class PemKeyStore {
    /** The alias of the one key entry; the password protecting it in memory (never written anywhere). */
    static final String ALIAS = "allot";
    static final char[] PASSWORD = "allot-in-memory".toCharArray();

    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)\\s*-----END \\1-----");

    /** Which of the two files is bad. */
    public enum Part { CERTIFICATE, KEY }

    /** A PEM file that cannot serve: which one, and why (the message names the file). */
    public static final class BadPem extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final Part part;
        private final Path file;

        BadPem(Part part, Path file, String problem) {
            super(problem);
            this.part = part;
            this.file = file;
        }

        public Part part() {
            return part;
        }

        public Path file() {
            return file;
        }
    }

    private PemKeyStore() {
    }

    /**
     * The key store holding the private key of {@code keyFile} with the chain of {@code certificateFile}.
     *
     * @throws BadPem when a file is missing, unreadable, not PEM, or the key does not match the certificate
     */
    public static KeyStore load(Path certificateFile, Path keyFile) {
        Objects.requireNonNull(certificateFile, "certificateFile");
        Objects.requireNonNull(keyFile, "keyFile");
        List<X509Certificate> chain = certificates(certificateFile);
        PrivateKey key = privateKey(keyFile);
        requireMatch(key, chain.get(0), certificateFile, keyFile);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(ALIAS, key, PASSWORD, chain.toArray(new Certificate[0]));
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new BadPem(Part.KEY, keyFile, keyFile + ": the JDK could not hold the key with its certificate: "
                    + e.getMessage());
        }
    }

    /** The X.509 certificates of a PEM file, the server's own first. */
    public static List<X509Certificate> certificates(Path file) {
        String text = read(Part.CERTIFICATE, file);
        if (!text.contains("-----BEGIN CERTIFICATE-----")) {
            throw new BadPem(Part.CERTIFICATE, file, file + ": expected a PEM certificate (-----BEGIN CERTIFICATE-----),"
                    + " got " + describe(text));
        }
        List<X509Certificate> chain = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Certificate c : factory.generateCertificates(new ByteArrayInputStream(
                    text.getBytes(StandardCharsets.US_ASCII)))) {
                chain.add((X509Certificate) c);
            }
        } catch (CertificateException | RuntimeException e) {
            throw new BadPem(Part.CERTIFICATE, file, file + ": not a readable PEM certificate: " + e.getMessage());
        }
        if (chain.isEmpty()) {
            throw new BadPem(Part.CERTIFICATE, file, file + ": holds no certificate");
        }
        return chain;
    }

    private static PrivateKey privateKey(Path file) {
        String text = read(Part.KEY, file);
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            String type = m.group(1);
            byte[] der;
            try {
                der = Base64.getMimeDecoder().decode(m.group(2));
            } catch (IllegalArgumentException e) {
                throw new BadPem(Part.KEY, file, file + ": the " + type + " block is not valid base64");
            }
            switch (type) {
                case "PRIVATE KEY":
                    return pkcs8(file, der);
                case "RSA PRIVATE KEY":
                    return pkcs8(file, wrapPkcs1Rsa(der));
                case "ENCRYPTED PRIVATE KEY":
                    throw new BadPem(Part.KEY, file, file + ": the key is encrypted; give an unencrypted key,"
                            + " e.g. openssl pkcs8 -topk8 -nocrypt -in KEY -out key.pem");
                case "EC PRIVATE KEY":
                    throw new BadPem(Part.KEY, file, file + ": expected a PKCS#8 key (-----BEGIN PRIVATE KEY-----), got"
                            + " a SEC1 EC key; convert it with openssl pkcs8 -topk8 -nocrypt -in KEY -out key.pem");
                default:
                    // a certificate or parameters before the key: look further
            }
        }
        throw new BadPem(Part.KEY, file, file + ": expected a PEM private key (-----BEGIN PRIVATE KEY-----, PKCS#8 RSA"
                + " or EC), got " + describe(text));
    }

    private static PrivateKey pkcs8(Path file, byte[] der) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : List.of("RSA", "EC", "RSASSA-PSS", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                // try the next algorithm
            }
        }
        throw new BadPem(Part.KEY, file, file + ": the PRIVATE KEY block is not a PKCS#8 RSA or EC key the JDK reads");
    }

    /** A PKCS#1 RSAPrivateKey wrapped as PKCS#8: SEQUENCE { 0, AlgorithmIdentifier rsaEncryption, OCTET STRING }. */
    private static byte[] wrapPkcs1Rsa(byte[] pkcs1) {
        byte[] version = {0x02, 0x01, 0x00};
        byte[] algorithm = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01,
                0x01, 0x05, 0x00};
        byte[] octets = der(0x04, pkcs1);
        byte[] body = new byte[version.length + algorithm.length + octets.length];
        System.arraycopy(version, 0, body, 0, version.length);
        System.arraycopy(algorithm, 0, body, version.length, algorithm.length);
        System.arraycopy(octets, 0, body, version.length + algorithm.length, octets.length);
        return der(0x30, body);
    }

    private static byte[] der(int tag, byte[] content) {
        int n = content.length;
        byte[] length;
        if (n < 0x80) {
            length = new byte[]{(byte) n};
        } else if (n < 0x100) {
            length = new byte[]{(byte) 0x81, (byte) n};
        } else if (n < 0x10000) {
            length = new byte[]{(byte) 0x82, (byte) (n >> 8), (byte) n};
        } else {
            length = new byte[]{(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
        }
        byte[] out = new byte[1 + length.length + n];
        out[0] = (byte) tag;
        System.arraycopy(length, 0, out, 1, length.length);
        System.arraycopy(content, 0, out, 1 + length.length, n);
        return out;
    }

    /** Signs with the key and verifies with the certificate: they belong together exactly when this passes. */
    private static void requireMatch(PrivateKey key, X509Certificate certificate, Path certificateFile, Path keyFile) {
        PublicKey pub = certificate.getPublicKey();
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        boolean matches;
        if (algorithm == null || !key.getAlgorithm().equals(pub.getAlgorithm())
                && !(key.getAlgorithm().startsWith("Ed") && pub.getAlgorithm().startsWith("Ed"))) {
            matches = false;
        } else {
            try {
                byte[] probe = "allot key check".getBytes(StandardCharsets.US_ASCII);
                Signature signer = Signature.getInstance(algorithm);
                signer.initSign(key);
                signer.update(probe);
                byte[] signature = signer.sign();
                Signature verifier = Signature.getInstance(algorithm);
                verifier.initVerify(pub);
                verifier.update(probe);
                matches = verifier.verify(signature);
            } catch (GeneralSecurityException e) {
                matches = false;
            }
        }
        if (!matches) {
            throw new BadPem(Part.KEY, keyFile, keyFile + ": this " + key.getAlgorithm() + " key does not belong to the"
                    + " certificate in " + certificateFile + " (" + certificate.getSubjectX500Principal().getName() + ", "
                    + pub.getAlgorithm() + ")");
        }
    }

    private static String read(Part part, Path file) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new BadPem(part, file, file + ": no such file");
        } catch (IOException e) {
            throw new BadPem(part, file, file + ": cannot read it: " + e.getMessage());
        }
    }

    private static String describe(String text) {
        if (text.isBlank()) {
            return "an empty file";
        }
        Matcher m = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----").matcher(text);
        return m.find() ? "a PEM " + m.group(1) + " block" : "no PEM block";
    }
}
