module sipo8 (
    input  wire       clk,
    input  wire       areset,
    input  wire       shift_ena,
    input  wire       serial_in,
    output reg  [7:0] parallel_out
);
    always @(posedge clk or posedge areset) begin
        if (areset)
            parallel_out <= 8'h00;
        else if (shift_ena)
            parallel_out <= {parallel_out[6:0], serial_in};
    end
endmodule
