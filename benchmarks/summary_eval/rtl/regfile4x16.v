module regfile4x16 (
    input  wire        clk,
    input  wire        areset,
    input  wire        wr_en,
    input  wire [1:0]  wr_sel,
    input  wire [15:0] wr_data,
    input  wire [1:0]  rd_sel,
    output reg  [15:0] rd_data
);
    reg [15:0] r0, r1, r2, r3;

    always @(posedge clk or posedge areset) begin
        if (areset) begin
            r0 <= 16'd0; r1 <= 16'd0; r2 <= 16'd0; r3 <= 16'd0;
        end else if (wr_en) begin
            case (wr_sel)
                2'd0: r0 <= wr_data;
                2'd1: r1 <= wr_data;
                2'd2: r2 <= wr_data;
                2'd3: r3 <= wr_data;
            endcase
        end
    end

    always @(*) begin
        case (rd_sel)
            2'd0:    rd_data = r0;
            2'd1:    rd_data = r1;
            2'd2:    rd_data = r2;
            default: rd_data = r3;
        endcase
    end
endmodule
