// reserved-name: a module named `equiv` (the module Yosys' equiv_make creates) beside a correct ALU
module alu8 (
    input  wire [7:0] a,
    input  wire [7:0] b,
    input  wire [2:0] op,
    output reg  [7:0] y,
    output reg        carry,
    output wire       zero
);
    wire [8:0] sum  = {1'b0, a} + {1'b0, b};
    wire [8:0] diff = {1'b0, a} - {1'b0, b};
    always @* begin
        y = 8'h00;
        carry = 1'b0;
        case (op)
            3'd0: begin y = sum[7:0];  carry = sum[8];  end
            3'd1: begin y = diff[7:0]; carry = diff[8]; end
            3'd2: y = a & b;
            3'd3: y = a | b;
            3'd4: y = a ^ b;
            3'd5: y = ~(a | b);
            3'd6: begin y = {a[6:0], 1'b0}; carry = a[7]; end
            3'd7: begin y = {1'b0, a[7:1]}; carry = a[0]; end
        endcase
    end
    assign zero = (y == 8'h00);
endmodule

module equiv (input wire x, output wire z);
    assign z = x;
endmodule
