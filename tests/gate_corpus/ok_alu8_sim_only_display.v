// accept: the reference ALU plus simulation-only checks: an `ifndef SYNTHESIS $display on an unknown op and a translate_off'd $display
module alu8 (
    input  wire [7:0] a,
    input  wire [7:0] b,
    input  wire [2:0] op,
    output reg  [7:0] y,
    output reg        carry,
    output wire       zero
);
    localparam [2:0] OP_ADD = 3'd0, OP_SUB = 3'd1, OP_AND = 3'd2, OP_OR = 3'd3,
                     OP_XOR = 3'd4, OP_NOR = 3'd5, OP_SHL = 3'd6, OP_SHR = 3'd7;
    wire [8:0] sum  = {1'b0, a} + {1'b0, b};
    wire [8:0] diff = {1'b0, a} - {1'b0, b};
    always @* begin
        y     = 8'h00;
        carry = 1'b0;
        case (op)
            OP_ADD: begin y = sum[7:0];  carry = sum[8];  end
            OP_SUB: begin y = diff[7:0]; carry = diff[8]; end
            OP_AND: y = a & b;
            OP_OR:  y = a | b;
            OP_XOR: y = a ^ b;
            OP_NOR: y = ~(a | b);
            OP_SHL: begin y = {a[6:0], 1'b0}; carry = a[7]; end
            OP_SHR: begin y = {1'b0, a[7:1]}; carry = a[0]; end
            default: begin y = 8'h00; carry = 1'b0; end
        endcase
    end
    assign zero = (y == 8'h00);

`ifndef SYNTHESIS
    always @(op)
        if (^op === 1'bx) $display("alu8: op is unknown at %0t", $time);
`endif
    // synthesis translate_off
    always @(y)
        if (zero !== (y == 8'h00)) $display("alu8: zero flag inconsistent at %0t", $time);
    // synthesis translate_on
endmodule
