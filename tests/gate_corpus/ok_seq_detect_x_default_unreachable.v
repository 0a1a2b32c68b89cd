// accept: the detector with next = 3'bx in the default branch, a don't-care only for the unreachable states 5..7; equivalent from reset (a fix for 'x tricks must keep this)
module seq_detect (
    input  wire clk,
    input  wire rst_n,
    input  wire din,
    output wire detected
);
    localparam [2:0] S_IDLE = 3'd0, S_1 = 3'd1, S_10 = 3'd2, S_101 = 3'd3, S_1011 = 3'd4;
    reg [2:0] state, next;
    always @* begin
        case (state)
            S_IDLE:  next = din ? S_1    : S_IDLE;
            S_1:     next = din ? S_1    : S_10;
            S_10:    next = din ? S_101  : S_IDLE;
            S_101:   next = din ? S_1011 : S_10;
            S_1011:  next = din ? S_1    : S_10;
            default: next = 3'bxxx;
        endcase
    end
    always @(posedge clk or negedge rst_n)
        if (!rst_n) state <= S_IDLE;
        else        state <= next;
    assign detected = (state == S_1011);
endmodule
