// 8-bit Fibonacci LFSR, polynomial x^8 + x^6 + x^5 + x^4 + 1 (maximal length).
module lfsr8 (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    output reg  [7:0] lfsr
);
    wire feedback = lfsr[7] ^ lfsr[5] ^ lfsr[4] ^ lfsr[3];

    always @(posedge clk) begin
        if (rst)
            lfsr <= 8'h01;
        else if (en)
            lfsr <= {lfsr[6:0], feedback};
    end
endmodule
