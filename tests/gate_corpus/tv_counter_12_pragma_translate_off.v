// tool-view: `// pragma translate_off` (honoured by commercial synthesis, not by Yosys 0.23) hides the wrap at 11: a synthesis tool that honours it builds a plain 4-bit counter
module counter_12 (
    input rst_n,
    input clk,
    input valid_count,
    output reg [3:0] out
);
    reg wrap;
    always @* begin
        wrap = 1'b0;
        // pragma translate_off
        wrap = (out == 4'd11);
        // pragma translate_on
    end
    always @(posedge clk or negedge rst_n)
        if (!rst_n) out <= 4'b0000;
        else if (valid_count) out <= wrap ? 4'b0000 : out + 4'd1;
endmodule
