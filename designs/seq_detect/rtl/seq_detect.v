// seq_detect: Moore FSM that detects the serial bit pattern 1011 (overlapping).
// din is sampled on each rising edge; detected is 1 for the clock cycle after
// the edge that sampled the final 1 of the pattern (it is a pure function of
// the state). Asynchronous active-low reset returns to the idle state.
module seq_detect (
    input  wire clk,
    input  wire rst_n,
    input  wire din,
    output wire detected
);
    localparam [2:0] S_IDLE = 3'd0,   // no useful prefix
                     S_1    = 3'd1,   // seen 1
                     S_10   = 3'd2,   // seen 10
                     S_101  = 3'd3,   // seen 101
                     S_1011 = 3'd4;   // seen 1011 -> detected

    reg [2:0] state, next;

    always @* begin
        case (state)
            S_IDLE:  next = din ? S_1    : S_IDLE;
            S_1:     next = din ? S_1    : S_10;
            S_10:    next = din ? S_101  : S_IDLE;
            S_101:   next = din ? S_1011 : S_10;
            S_1011:  next = din ? S_1    : S_10;
            default: next = S_IDLE;
        endcase
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) state <= S_IDLE;
        else        state <= next;
    end

    assign detected = (state == S_1011);
endmodule
