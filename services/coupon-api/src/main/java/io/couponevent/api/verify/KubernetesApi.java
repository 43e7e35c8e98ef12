package io.couponevent.api.verify;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Optional;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The few Kubernetes API calls of the verification Job, over HTTPS with the pod's service
 * account: its token (read at every call, as the kubelet rotates it) and the cluster's
 * CA. The Role grants exactly these: get the TestRun and its runner Jobs, patch the
 * verdict ConfigMap.
 */
class KubernetesApi {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final URI server;

	private final Path token;

	private final HttpClient http;

	private final JsonMapper json = JsonMapper.builder().build();

	/**
	 * @param server the API server, {@code https://kubernetes.default.svc} in a pod
	 * @param serviceAccount the mounted service account ({@code token}, {@code ca.crt})
	 */
	KubernetesApi(URI server, Path serviceAccount) {
		this.server = server;
		this.token = serviceAccount.resolve("token");
		this.http = HttpClient.newBuilder()
			.connectTimeout(TIMEOUT)
			.sslContext(trusting(serviceAccount.resolve("ca.crt")))
			.build();
	}

	/** The object at {@code path}, or empty when it does not exist (404). */
	Optional<JsonNode> get(String path) {
		HttpResponse<String> res = send(request(path).GET().build());
		if (res.statusCode() == 404) {
			return Optional.empty();
		}
		check(res, "GET " + path);
		return Optional.of(json.readTree(res.body()));
	}

	/** A JSON merge patch (RFC 7386) of the object at {@code path}. */
	void mergePatch(String path, Object patch) {
		HttpResponse<String> res = send(request(path).header("Content-Type", "application/merge-patch+json")
			.method("PATCH", HttpRequest.BodyPublishers.ofString(json.writeValueAsString(patch)))
			.build());
		check(res, "PATCH " + path);
	}

	private HttpRequest.Builder request(String path) {
		try {
			return HttpRequest.newBuilder(server.resolve(path))
				.timeout(TIMEOUT)
				.header("Accept", "application/json")
				.header("Authorization", "Bearer " + Files.readString(token).trim());
		}
		catch (IOException e) {
			throw new IllegalStateException("cannot read the service account token " + token + ": " + e, e);
		}
	}

	private HttpResponse<String> send(HttpRequest request) {
		try {
			return http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", e);
		}
		catch (IOException e) {
			throw new IllegalStateException(request.method() + " " + request.uri() + " failed: " + e, e);
		}
	}

	private static void check(HttpResponse<String> res, String what) {
		if (res.statusCode() / 100 != 2) {
			String body = res.body();
			throw new IllegalStateException(what + " answered " + res.statusCode() + ": "
					+ (body.length() > 300 ? body.substring(0, 300) : body));
		}
	}

	private static SSLContext trusting(Path caFile) {
		try (InputStream in = Files.newInputStream(caFile)) {
			KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
			store.load(null, null);
			int i = 0;
			for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
				store.setCertificateEntry("ca-" + i++, ca);
			}
			TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			trust.init(store);
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(null, trust.getTrustManagers(), null);
			return context;
		}
		catch (IOException | GeneralSecurityException e) {
			throw new IllegalStateException("cannot load the cluster CA " + caFile + ": " + e, e);
		}
	}

}
