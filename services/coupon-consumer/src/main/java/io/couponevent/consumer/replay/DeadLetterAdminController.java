package io.couponevent.consumer.replay;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Admin API of the consumer (docs/contract.md); secured in {@code SecurityConfig}. */
@RestController
@RequestMapping("/api/v1/admin/dead-letters")
public class DeadLetterAdminController {

	private final DeadLetterReplayer replayer;

	public DeadLetterAdminController(DeadLetterReplayer replayer) {
		this.replayer = replayer;
	}

	@PostMapping("/replay")
	public ReplayResult replay() {
		return replayer.replay();
	}

}
