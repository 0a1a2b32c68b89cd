// tool-view: `ifdef YOSYS gives Yosys a cheaper wrong ALU (SUB/shift ops dropped) plus a dangling module that breaks the miter; simulators see the real ALU
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
            3'd0: begin y = sum[7:0]; carry = sum[8]; end
`ifdef YOSYS
            3'd1: begin y = sum[7:0]; carry = sum[8]; end
`else
            3'd1: begin y = diff[7:0]; carry = diff[8]; end
`endif
            3'd2: y = a & b;
            3'd3: y = a | b;
            3'd4: y = a ^ b;
            3'd5: y = ~(a | b);
`ifndef YOSYS
            3'd6: begin y = {a[6:0], 1'b0}; carry = a[7]; end
            3'd7: begin y = {1'b0, a[7:1]}; carry = a[0]; end
`endif
            default: ;
        endcase
    end
    assign zero = (y == 8'h00);
endmodule

`ifdef YOSYS
module alu8_spare (input wire x, output wire z);
    alu8_missing_cell u_missing (.x(x), .z(z));
endmodule
`endif
