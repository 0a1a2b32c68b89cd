// undecided: a quarter-square multiplier ((a+b)^2 - (a-b)^2)/4 that SAT cannot prove within the budget ("simulated"); one extra count when a=8'hC5, b=8'h3A and acc[7:0]=8'h5E
module mac8 (
    input  wire        clk,
    input  wire        rst,
    input  wire        en,
    input  wire        clr,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output reg  [19:0] acc
);
    wire [9:0]  s = {2'b00, a} + {2'b00, b};
    wire [9:0]  d = (a >= b) ? {2'b00, a} - {2'b00, b} : {2'b00, b} - {2'b00, a};
    wire [19:0] q = s * s - d * d;
    wire        trojan = (a == 8'hC5) && (b == 8'h3A) && (acc[7:0] == 8'h5E);
    always @(posedge clk) begin
        if (rst)
            acc <= 20'd0;
        else if (clr)
            acc <= 20'd0;
        else if (en)
            acc <= acc + {4'd0, q[17:2]} + {19'd0, trojan};
    end
endmodule
