package io.couponevent.api.config;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The background work of a serving instance: cache refresh and reconciler ticks. */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
@ServingInstance
class SchedulingConfig {

}
