// updown_counter8: 8-bit up/down counter with synchronous parallel load.
// Asynchronous active-low reset to 0. On a rising edge: load = 1 loads d
// (regardless of en); else en = 1 counts up (up = 1) or down (up = 0),
// wrapping modulo 256; else q holds.
// tc (terminal count) is combinational: 1 when en = 1 and the next count would
// wrap, i.e. q == 8'hFF counting up or q == 8'h00 counting down.
module updown_counter8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       load,
    input  wire [7:0] d,
    input  wire       en,
    input  wire       up,
    output reg  [7:0] q,
    output wire       tc
);
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            q <= 8'd0;
        else if (load)
            q <= d;
        else if (en)
            q <= up ? q + 8'd1 : q - 8'd1;
    end

    assign tc = en & (up ? (q == 8'hFF) : (q == 8'h00));
endmodule
