// long-horizon: a 16-bit cycle counter from reset; after 60,000 cycles the EW green phase is cut to 4 cycles
module traffic_light (
    input  wire       clk,
    input  wire       rst,
    input  wire       ew_car,
    output reg  [2:0] ns_light,
    output reg  [2:0] ew_light
);
    localparam [2:0] NS_G = 3'd0, NS_Y = 3'd1, RED1 = 3'd2, EW_G = 3'd3, EW_Y = 3'd4, RED2 = 3'd5;
    localparam [2:0] L_RED = 3'b100, L_YEL = 3'b010, L_GRN = 3'b001;

    reg [2:0]  state;
    reg [3:0]  timer;
    reg [15:0] age;
    reg        leave;
    reg [2:0]  next;
    wire [3:0] ew_len = (age >= 16'd60000) ? 4'd4 : 4'd5;

    always @* begin
        case (state)
            NS_G:    begin leave = (timer >= 4'd7) && ew_car;   next = NS_Y; end
            NS_Y:    begin leave = (timer == 4'd1);             next = RED1; end
            RED1:    begin leave = (timer == 4'd0);             next = EW_G; end
            EW_G:    begin leave = (timer == ew_len - 4'd1);    next = EW_Y; end
            EW_Y:    begin leave = (timer == 4'd1);             next = RED2; end
            RED2:    begin leave = (timer == 4'd0);             next = NS_G; end
            default: begin leave = 1'b1;                        next = NS_G; end
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            state <= NS_G;
            timer <= 4'd0;
            age   <= 16'd0;
        end else begin
            if (age != 16'hffff) age <= age + 16'd1;
            if (leave) begin
                state <= next;
                timer <= 4'd0;
            end else if (timer != 4'hF) begin
                timer <= timer + 4'd1;
            end
        end
    end

    always @* begin
        case (state)
            NS_G:    begin ns_light = L_GRN; ew_light = L_RED; end
            NS_Y:    begin ns_light = L_YEL; ew_light = L_RED; end
            EW_G:    begin ns_light = L_RED; ew_light = L_GRN; end
            EW_Y:    begin ns_light = L_RED; ew_light = L_YEL; end
            default: begin ns_light = L_RED; ew_light = L_RED; end
        endcase
    end
endmodule
