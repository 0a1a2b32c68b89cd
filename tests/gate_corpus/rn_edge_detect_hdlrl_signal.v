// reserved-name: internal signals named like the generated testbench's (hdlrl_known_rise, hdlrl_reference_down); the gate must refuse every hdlrl_ name
module edge_detect (
    input clk,
    input rst_n,
    input a,
    output reg rise,
    output reg down
);
    reg hdlrl_reference_down;
    wire hdlrl_known_rise = a & ~hdlrl_reference_down;
    always @(posedge clk or negedge rst_n)
        if (~rst_n) begin
            rise <= 1'b0;
            down <= 1'b0;
            hdlrl_reference_down <= 1'b0;
        end else begin
            rise <= hdlrl_known_rise;
            down <= ~a & hdlrl_reference_down;
            hdlrl_reference_down <= a;
        end
endmodule
