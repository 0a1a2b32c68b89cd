// 5-bit Galois LFSR with taps at bit positions 5 and 3.
module lfsr5_galois (
    input  wire       clk,
    input  wire       reset,
    output reg  [4:0] q
);
    always @(posedge clk) begin
        if (reset)
            q <= 5'h1;
        else
            q <= {q[0], q[4], q[3] ^ q[0], q[2], q[1]};
    end
endmodule
