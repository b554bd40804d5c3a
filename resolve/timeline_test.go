package resolve

import "testing"

// TestTimelineErrors: observe.timeline is refused, at its key, where it
// cannot follow a pingpong's iteration of one-packet messages.
func TestTimelineErrors(t *testing.T) {
	const head = "topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}\n"
	for _, c := range []struct{ name, src, want string }{
		{"no pingpong", head + `traffic:
  - flow: {from: h0, to: h1, size: 64}
observe: {timeline: {iteration: 2}}
`, `t.yaml:4:21: observe.timeline: traffic has no pingpong and no perftest send_lat; the timeline follows one iteration of either`},
		{"traffic is a flow", head + `traffic:
  - flow: {from: h0, to: h1, size: 64}
  - pingpong: {from: h0, to: h1, size: 64, iterations: 10}
observe: {timeline: {traffic: 0}}
`, `t.yaml:5:31: observe.timeline.traffic: traffic[0] is a flow; observe.timeline follows an iteration of a pingpong or a perftest send_lat (its ping, pong and their ACKs)`},
		{"perftest write_lat", head + `traffic:
  - perftest: {test: write_lat, from: h0, to: h1, size: 64}
observe: {timeline: {traffic: 0}}
`, `t.yaml:4:31: observe.timeline.traffic: traffic[0] is a perftest write_lat; observe.timeline follows an iteration of a pingpong or a perftest send_lat (its ping, pong and their ACKs)`},
		{"traffic past the list", head + `traffic:
  - pingpong: {from: h0, to: h1, size: 64, iterations: 10}
observe: {timeline: {traffic: 3}}
`, `t.yaml:4:31: observe.timeline.traffic: traffic[3] does not exist; traffic has 1 entries (0..0)`},
		{"iteration past the last", head + `traffic:
  - pingpong: {from: h0, to: h1, size: 64, iterations: 10}
observe: {timeline: {iteration: 11}}
`, `t.yaml:4:33: observe.timeline.iteration: iteration 11 is past the pingpong's last (traffic[0] runs 10 iterations)`},
		{"messages of several packets", head + `traffic:
  - pingpong: {from: h0, to: h1, size: 8192, iterations: 10}
observe: {timeline: {}}
`, `t.yaml:4:21: observe.timeline: traffic[0]'s messages of 8192 bytes take 2 packets; observe.timeline follows messages of one packet (size at most the MTU, 4096)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(c.src))
			if err == nil {
				t.Fatalf("loaded without error (warnings %v); want\n%s", s.Warnings, c.want)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
