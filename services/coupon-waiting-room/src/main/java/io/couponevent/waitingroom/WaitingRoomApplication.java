package io.couponevent.waitingroom;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The waiting room: users queue per zone in Redis Cluster and are let in, in order of
 * first arrival, at the zone's admission budget.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class WaitingRoomApplication {

	public static void main(String[] args) {
		SpringApplication.run(WaitingRoomApplication.class, args);
	}

}
