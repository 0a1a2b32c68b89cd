module popcount8 (
    input  wire [7:0] bits,
    output reg  [3:0] ones
);
    integer n;

    always @(*) begin
        ones = 4'd0;
        for (n = 0; n < 8; n = n + 1)
            ones = ones + bits[n];
    end
endmodule
