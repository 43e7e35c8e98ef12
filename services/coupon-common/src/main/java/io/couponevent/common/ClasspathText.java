package io.couponevent.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ClassPathResource;

/**
 * A classpath file's text, for the services' Lua scripts: a {@code RedisScript} built
 * from its text instead of a resource is not asked on every call whether the resource
 * changed (a class-loader lookup per request, a visible share of the hot paths' CPU
 * samples).
 */
public final class ClasspathText {

	private ClasspathText() {
	}

	public static String read(String path) {
		try {
			return new ClassPathResource(path).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot read " + path + " from the classpath", ex);
		}
	}

}
