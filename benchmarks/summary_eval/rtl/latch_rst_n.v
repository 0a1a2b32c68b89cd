// 4-bit transparent latch with an asynchronous active-low clear.
module latch_rst_n (
    input  wire       rst_n,
    input  wire       gate,
    input  wire [3:0] d,
    output reg  [3:0] q
);
    always @(*) begin
        if (!rst_n)
            q = 4'b0000;
        else if (gate)
            q = d;
    end
endmodule
